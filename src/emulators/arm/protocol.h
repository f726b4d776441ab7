#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "api/reflect/json.h"
#include "http/server.h"

// ARM's wire conventions shared by every handler: the error shape {"error": {"code",
// "message"}}, request ids, and the async-operation headers.
namespace nodewright::emulators::arm {

struct ArmError {
  int status = 400;
  std::string code;
  std::string message;
  // Extra response headers (Retry-After on 429).
  std::vector<std::pair<std::string, std::string>> headers;
};

template <class T>
using ArmResult = tl::expected<T, ArmError>;

inline ArmError armError(int status, std::string code, std::string message) {
  ArmError e;
  e.status = status;
  e.code = std::move(code);
  e.message = std::move(message);
  return e;
}

inline tl::unexpected<ArmError> armFail(int status, std::string code, std::string message) {
  return tl::unexpected<ArmError>(armError(status, std::move(code), std::move(message)));
}

// A handler's answer before the common headers are added.
struct Reply {
  int status = 200;
  api::Json body;  // null: no body
  std::vector<std::pair<std::string, std::string>> headers;
  std::string errorCode;  // for stats; empty on success
};

Reply errorReply(const ArmError& error);
Reply jsonReply(int status, api::Json body);

// A random version-4 UUID (ARM's request and operation ids). Thread-safe.
std::string newUuid();

// Whole seconds, at least 1, for Retry-After: ARM sends integers.
std::string retryAfterSeconds(std::chrono::microseconds wait);

// RFC 3339 with 7 fractional digits, as ARM writes times.
std::string armTime(std::chrono::system_clock::time_point t);

// Form-encoded pairs (the token endpoint's body).
std::vector<std::pair<std::string, std::string>> parseForm(std::string_view body);

}  // namespace nodewright::emulators::arm
