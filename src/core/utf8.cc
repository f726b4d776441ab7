#include "core/utf8.h"

namespace nodewright::core {

std::size_t utf8SequenceLength(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || s.size() < length) {
    return 0;
  }
  unsigned char low = 0x80, high = 0xBF;
  if (lead == 0xE0) {
    low = 0xA0;
  }
  if (lead == 0xED) {
    high = 0x9F;
  }
  if (lead == 0xF0) {
    low = 0x90;
  }
  if (lead == 0xF4) {
    high = 0x8F;
  }
  if (byte(1) < low || byte(1) > high) {
    return 0;
  }
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) {
      return 0;
    }
  }
  return length;
}

std::string validUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    std::size_t length = utf8SequenceLength(bytes);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      length = 1;
    } else {
      out.append(bytes.substr(0, length));
    }
    bytes.remove_prefix(length);
  }
  return out;
}

}  // namespace nodewright::core
