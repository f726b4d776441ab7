#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "aws/error.h"
#include "aws/query.h"

// Reads optional fields of one view of Query parameters, keeping the first error, so a parser
// reads like the structure it parses and checks once at the end:
//
//   std::optional<aws::ApiError> error;
//   ParamReader r(params, error);
//   spec.deviceIndex = r.integer("DeviceIndex");
//   ...
//   if (error) return tl::unexpected(*error);
//
// Readers of sub-structures share the error slot, which must outlive them.
namespace nodewright::emulators::ec2 {

class ParamReader {
 public:
  ParamReader(aws::Params params, std::optional<aws::ApiError>& error)
      : params_(std::move(params)), error_(error) {}

  bool has(std::string_view name) const { return params_.has(name); }
  ParamReader sub(std::string_view name) const { return ParamReader(params_.sub(name), error_); }
  const aws::Params& params() const { return params_; }

  std::optional<std::string> str(std::string_view name) const {
    auto value = params_.find(name);
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  // One of `allowed`, else InvalidParameterValue naming the parameter.
  std::optional<std::string> oneOf(std::string_view name,
                                   std::initializer_list<std::string_view> allowed) const {
    auto value = str(name);
    if (value && std::find(allowed.begin(), allowed.end(), *value) == allowed.end()) {
      invalid(name, *value);
    }
    return value;
  }
  std::optional<int64_t> integer(std::string_view name) const {
    return take(params_.optInteger(name)).value_or(std::nullopt);
  }
  // An integer that must not be negative.
  std::optional<int64_t> count(std::string_view name) const {
    auto value = integer(name);
    if (value && *value < 0) {
      invalid(name, std::to_string(*value));
    }
    return value;
  }
  std::optional<double> number(std::string_view name) const;
  std::optional<bool> boolean(std::string_view name) const {
    return take(params_.optBoolean(name)).value_or(std::nullopt);
  }
  std::vector<std::string> strings(std::string_view name) const {
    return take(params_.strings(name)).value_or(std::vector<std::string>{});
  }
  std::vector<ParamReader> list(std::string_view name) const {
    std::vector<ParamReader> out;
    for (aws::Params& member : take(params_.list(name)).value_or(std::vector<aws::Params>{})) {
      out.emplace_back(std::move(member), error_);
    }
    return out;
  }

  // Records `error` unless an earlier one is there.
  void fail(aws::ApiError error) const {
    if (!error_) {
      error_ = std::move(error);
    }
  }
  // "Invalid value 'x' for Prefix.Name", as the Query deserializer words it.
  void invalid(std::string_view name, std::string_view value) const {
    fail({"InvalidParameterValue",
          fmt::format("Invalid value '{}' for {}", value, params_.path(name))});
  }
  void missing(std::string_view name) const {
    fail({"MissingParameter", "The request must contain the parameter " + params_.path(name)});
  }
  template <class T>
  std::optional<T> take(aws::ApiResult<T> result) const {
    if (!result) {
      fail(result.error());
      return std::nullopt;
    }
    return std::move(*result);
  }

 private:
  aws::Params params_;
  std::optional<aws::ApiError>& error_;
};

inline std::optional<double> ParamReader::number(std::string_view name) const {
  auto text = str(name);
  if (!text) {
    return std::nullopt;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) {
    invalid(name, *text);
    return std::nullopt;
  }
  return value;
}

// The error of a failed result, to return from a function of another result type.
template <class T>
tl::unexpected<aws::ApiError> failWith(const aws::ApiResult<T>& result) {
  return tl::unexpected(result.error());
}

}  // namespace nodewright::emulators::ec2
