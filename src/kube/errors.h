#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/error.h"

// Every failed API call is one of these, so callers branch on meaning, not on status codes.
namespace nodewright::kube {

enum class Reason {
  NotFound,         // 404
  AlreadyExists,    // 409 reason AlreadyExists
  Conflict,         // 409 (stale resourceVersion, precondition failed)
  Invalid,          // 422, 400
  Gone,             // 410: resourceVersion too old (watch/list resume)
  TooManyRequests,  // 429 (retryAfter set from Retry-After)
  Timeout,          // 504, 408, or the client's own deadline
  Unauthorized,     // 401
  Forbidden,        // 403
  ServerError,      // other 5xx
  Unavailable,      // connection refused/reset, TLS failure: the server could not be reached
  Other,
};

const char* reasonName(Reason reason);

struct ApiError {
  Reason reason = Reason::Other;
  int code = 0;  // HTTP status, 0 when no response arrived
  std::string message;
  // The Status object's details.causes as "field: message" lines (Invalid).
  std::vector<std::string> causes;
  std::optional<std::chrono::milliseconds> retryAfter;

  bool is(Reason r) const { return reason == r; }
  // Worth retrying the same request later (429, 5xx, timeouts, unreachable).
  bool transient() const;
  std::string describe() const;
  core::Error toError() const;
};

// From an HTTP status, the response body (a metav1.Status when the server wrote one) and the
// Retry-After header value.
ApiError classify(int code, const std::string& body, const std::string& retryAfter);

template <class T>
using ApiResult = tl::expected<T, ApiError>;
using ApiStatus = ApiResult<void>;

}  // namespace nodewright::kube
