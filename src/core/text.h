#pragma once

#include <algorithm>
#include <cctype>
#include <string>
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

// `s` with ASCII letters lower-cased. Locale-independent: header names, ARM ids and the like
// compare by ASCII case only.
inline std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Whether `a` and `b` are equal ignoring ASCII case.
inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace nodewright::core
