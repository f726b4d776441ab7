#include "api/capi/cidr.h"

#include <vector>

#include "core/hex.h"

namespace nodewright::api::capi {
namespace {

std::optional<std::array<uint8_t, 4>> parseIpv4(std::string_view text) {
  std::array<uint8_t, 4> out{};
  size_t part = 0;
  size_t pos = 0;
  while (part < 4) {
    size_t start = pos;
    int value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      value = value * 10 + (text[pos] - '0');
      if (value > 255 || pos - start >= 3) {
        return std::nullopt;
      }
      ++pos;
    }
    size_t digits = pos - start;
    // Go rejects leading zeros, which other parsers would read as octal.
    if (digits == 0 || (digits > 1 && text[start] == '0')) {
      return std::nullopt;
    }
    out[part++] = static_cast<uint8_t>(value);
    if (part < 4) {
      if (pos >= text.size() || text[pos] != '.') {
        return std::nullopt;
      }
      ++pos;
    }
  }
  if (pos != text.size()) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::array<uint8_t, 16>> parseIpv6(std::string_view text) {
  std::vector<uint16_t> head;
  std::vector<uint16_t> tail;
  bool compressed = false;
  std::optional<std::array<uint8_t, 4>> v4tail;
  size_t pos = 0;
  if (text.substr(0, 2) == "::") {
    compressed = true;
    pos = 2;
  } else if (!text.empty() && text[0] == ':') {
    return std::nullopt;
  }
  while (pos < text.size()) {
    std::vector<uint16_t>& groups = compressed ? tail : head;
    // An IPv4 tail ("::ffff:10.0.0.1") takes the last two groups.
    size_t nextColon = text.find(':', pos);
    std::string_view token = text.substr(
        pos, nextColon == std::string_view::npos ? std::string_view::npos : nextColon - pos);
    if (token.find('.') != std::string_view::npos) {
      if (nextColon != std::string_view::npos) {
        return std::nullopt;
      }
      v4tail = parseIpv4(token);
      if (!v4tail) {
        return std::nullopt;
      }
      pos = text.size();
      break;
    }
    if (token.empty() || token.size() > 4) {
      return std::nullopt;
    }
    uint16_t value = 0;
    for (char c : token) {
      int d = core::hexDigitValue(c);
      if (d < 0) {
        return std::nullopt;
      }
      value = static_cast<uint16_t>(value * 16 + d);
    }
    groups.push_back(value);
    pos += token.size();
    if (pos == text.size()) {
      break;
    }
    // pos is at a ':'.
    if (pos + 1 < text.size() && text[pos + 1] == ':') {
      if (compressed) {
        return std::nullopt;
      }
      compressed = true;
      pos += 2;
    } else {
      ++pos;
      if (pos == text.size()) {
        return std::nullopt;  // trailing single ':'
      }
    }
  }
  size_t groups = head.size() + tail.size() + (v4tail ? 2 : 0);
  if ((compressed && groups > 7) || (!compressed && groups != 8)) {
    return std::nullopt;
  }
  std::array<uint8_t, 16> out{};
  size_t i = 0;
  for (uint16_t g : head) {
    out[i++] = static_cast<uint8_t>(g >> 8);
    out[i++] = static_cast<uint8_t>(g & 0xff);
  }
  size_t tailBytes = tail.size() * 2 + (v4tail ? 4 : 0);
  i = 16 - tailBytes;
  for (uint16_t g : tail) {
    out[i++] = static_cast<uint8_t>(g >> 8);
    out[i++] = static_cast<uint8_t>(g & 0xff);
  }
  if (v4tail) {
    for (uint8_t b : *v4tail) {
      out[i++] = b;
    }
  }
  return out;
}

}  // namespace

std::optional<IpAddress> parseIp(std::string_view text) {
  IpAddress ip;
  if (text.find(':') == std::string_view::npos) {
    auto v4 = parseIpv4(text);
    if (!v4) {
      return std::nullopt;
    }
    std::copy(v4->begin(), v4->end(), ip.bytes.begin());
    return ip;
  }
  auto v6 = parseIpv6(text);
  if (!v6) {
    return std::nullopt;
  }
  ip.v6 = true;
  ip.bytes = *v6;
  return ip;
}

std::optional<IpNetwork> parseCidr(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return std::nullopt;
  }
  auto ip = parseIp(text.substr(0, slash));
  std::string_view prefixText = text.substr(slash + 1);
  if (!ip || prefixText.empty() || prefixText.size() > 3) {
    return std::nullopt;
  }
  int prefix = 0;
  for (char c : prefixText) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    prefix = prefix * 10 + (c - '0');
  }
  if (prefix > static_cast<int>(ip->size() * 8)) {
    return std::nullopt;
  }
  IpNetwork net{*ip, prefix};
  for (size_t bit = static_cast<size_t>(prefix); bit < ip->size() * 8; ++bit) {
    net.base.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  return net;
}

bool IpNetwork::contains(const IpAddress& ip) const {
  if (ip.v6 != base.v6) {
    return false;
  }
  for (int bit = 0; bit < prefix; ++bit) {
    uint8_t mask = static_cast<uint8_t>(0x80u >> (bit % 8));
    if ((ip.bytes[static_cast<size_t>(bit / 8)] & mask) !=
        (base.bytes[static_cast<size_t>(bit / 8)] & mask)) {
      return false;
    }
  }
  return true;
}

}  // namespace nodewright::api::capi
