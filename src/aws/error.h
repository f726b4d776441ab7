#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace nodewright::aws {

// An error as an AWS service puts it on the wire. AWS codes are an open set
// ("InvalidParameterValue", "InvalidInstanceID.Malformed", ...), so unlike core::Error the code
// is a string; the HTTP status travels with it because clients branch on both.
struct ApiError {
  std::string code;
  std::string message;
  int httpStatus = 400;
};

template <class T>
using ApiResult = tl::expected<T, ApiError>;

inline tl::unexpected<ApiError> apiFail(std::string code, std::string message,
                                        int httpStatus = 400) {
  return tl::unexpected<ApiError>(ApiError{std::move(code), std::move(message), httpStatus});
}

}  // namespace nodewright::aws
