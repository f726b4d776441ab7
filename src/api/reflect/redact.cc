#include "api/reflect/redact.h"

#include "core/sha256.h"

namespace nodewright::api::reflect {

namespace {
constexpr std::string_view kPrefix = "redacted sha256:";
}  // namespace

std::string redacted(std::string_view value) {
  if (value.substr(0, kPrefix.size()) == kPrefix) {
    return std::string(value);
  }
  return std::string(kPrefix) + core::sha256Hex(value).substr(0, 16);
}

}  // namespace nodewright::api::reflect
