#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace nodewright::core {

// A closed set of error meanings that callers branch on. Context is added with wrap().
enum class Code {
  NotFound,
  Conflict,
  InsufficientCapacity,
  Throttled,
  Invalid,
  Internal,
};

const char* codeName(Code code);

class Error {
 public:
  Error(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Error notFound(std::string message) { return {Code::NotFound, std::move(message)}; }
  static Error invalid(std::string message) { return {Code::Invalid, std::move(message)}; }
  static Error internal(std::string message) { return {Code::Internal, std::move(message)}; }

  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  bool is(Code code) const { return code_ == code; }

  // Returns this error with "context: " prefixed, e.g. wrap("reading manifest").
  Error wrap(std::string_view context) const;

 private:
  Code code_;
  std::string message_;
};

template <class T>
using Result = tl::expected<T, Error>;

// Result<void> success value.
using Status = Result<void>;
inline Status ok() {
  return {};
}

inline tl::unexpected<Error> fail(Error error) {
  return tl::unexpected<Error>(std::move(error));
}

}  // namespace nodewright::core
