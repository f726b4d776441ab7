#pragma once

#include <cstdint>
#include <string>

namespace nodewright::api {

// intstr.IntOrString: either a number or a string such as "10%".
struct IntOrString {
  bool isString = false;
  int64_t intValue = 0;
  std::string stringValue;

  static IntOrString ofInt(int64_t v) { return IntOrString{false, v, {}}; }
  static IntOrString ofString(std::string s) { return IntOrString{true, 0, std::move(s)}; }
  std::string toString() const { return isString ? stringValue : std::to_string(intValue); }
  bool operator==(const IntOrString&) const = default;
};

}  // namespace nodewright::api
