#include "core/sha256.h"

#include <openssl/evp.h>

#include <array>

#include "core/check.h"
#include "core/hex.h"

namespace nodewright::core {

std::string sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  NW_CHECK(EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr) == 1);
  return hexEncode(std::string_view(reinterpret_cast<const char*>(out.data()), size));
}

}  // namespace nodewright::core
