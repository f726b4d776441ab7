#pragma once

#include <string>
#include <string_view>

namespace nodewright::test_support {

// `s` n times over: the deep and long bodies of the hostile-input tests.
inline std::string repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) {
    out += s;
  }
  return out;
}

}  // namespace nodewright::test_support
