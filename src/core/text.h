#pragma once

#include <cctype>
#include <string_view>

namespace nodewright::core {

// `s` without leading and trailing whitespace (std::isspace: space, \t, \n, \v, \f, \r).
inline std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace nodewright::core
