#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nodewright::core {

// Length of the valid UTF-8 sequence at the start of `s` (non-empty), or 0 (Go's utf8 rules: no
// overlong forms, no surrogates, nothing past U+10FFFF).
std::size_t utf8SequenceLength(std::string_view s);

// `bytes` with each byte that does not start a valid UTF-8 sequence replaced by U+FFFD, as Go's
// encoding/json does when it writes a string.
std::string validUtf8(std::string_view bytes);

}  // namespace nodewright::core
