#include "core/duration.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace nodewright::core {
namespace {

constexpr std::string_view kNever = "Never";
constexpr uint64_t kNanosecond = 1;
constexpr uint64_t kMicrosecond = 1000 * kNanosecond;
constexpr uint64_t kMillisecond = 1000 * kMicrosecond;
constexpr uint64_t kSecond = 1000 * kMillisecond;
constexpr uint64_t kMinute = 60 * kSecond;
constexpr uint64_t kHour = 60 * kMinute;
constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // of the most negative duration

// Go's time.quote: double quotes, '"' and '\' escaped, bytes outside printable ASCII as \xNN.
std::string quote(std::string_view text) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 || byte < 0x20) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

Error invalidDuration(std::string_view text) {
  return Error::invalid("time: invalid duration " + quote(text));
}

std::optional<uint64_t> unitNanos(std::string_view unit) {
  struct Unit {
    std::string_view name;
    uint64_t nanos;
  };
  static constexpr std::array<Unit, 8> kUnits = {{
      {"ns", kNanosecond},
      {"us", kMicrosecond},
      {"\u00b5s", kMicrosecond},  // U+00B5 micro sign
      {"\u03bcs", kMicrosecond},  // U+03BC Greek small letter mu
      {"ms", kMillisecond},
      {"s", kSecond},
      {"m", kMinute},
      {"h", kHour},
  }};
  for (const Unit& u : kUnits) {
    if (u.name == unit) {
      return u.nanos;
    }
  }
  return std::nullopt;
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Consumes [0-9]* like Go's leadingInt; nullopt on overflow past 2^63.
std::optional<uint64_t> leadingInt(std::string_view& s) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i < s.size() && isDigit(s[i]); ++i) {
    if (x > kMaxMagnitude / 10) {
      return std::nullopt;
    }
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (x > kMaxMagnitude) {
      return std::nullopt;
    }
  }
  s.remove_prefix(i);
  return x;
}

// Consumes [0-9]* after a decimal point like Go's leadingFraction: digits past the precision of
// uint64 are consumed but ignored.
void leadingFraction(std::string_view& s, uint64_t& x, double& scale) {
  x = 0;
  scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && isDigit(s[i]); ++i) {
    if (overflow) {
      continue;
    }
    if (x > (kMaxMagnitude - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kMaxMagnitude) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

// Writes the fraction v / 10^precision (".12", trailing zeros and a bare point omitted) before
// end; returns the new start and v / 10^precision.
char* formatFraction(char* end, uint64_t& v, int precision) {
  bool print = false;
  for (int i = 0; i < precision; ++i) {
    const uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) {
      *--end = static_cast<char>('0' + digit);
    }
    v /= 10;
  }
  if (print) {
    *--end = '.';
  }
  return end;
}

char* formatInt(char* end, uint64_t v) {
  if (v == 0) {
    *--end = '0';
    return end;
  }
  while (v > 0) {
    *--end = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return end;
}

}  // namespace

Result<Duration> Duration::parse(std::string_view text) {
  if (text == kNever) {
    return Duration::never();
  }
  // Go's time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    return Duration();
  }
  if (s.empty()) {
    return fail(invalidDuration(text));
  }
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || isDigit(s[0]))) {
      return fail(invalidDuration(text));
    }
    const size_t before = s.size();
    const std::optional<uint64_t> whole = leadingInt(s);
    if (!whole) {
      return fail(invalidDuration(text));
    }
    const bool hasWhole = s.size() != before;

    uint64_t fraction = 0;
    double scale = 1;
    bool hasFraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const size_t fractionBefore = s.size();
      leadingFraction(s, fraction, scale);
      hasFraction = s.size() != fractionBefore;
    }
    if (!hasWhole && !hasFraction) {
      return fail(invalidDuration(text));  // no digits, e.g. ".s"
    }

    size_t unitLength = 0;
    while (unitLength < s.size() && s[unitLength] != '.' && !isDigit(s[unitLength])) {
      ++unitLength;
    }
    if (unitLength == 0) {
      return fail(Error::invalid("time: missing unit in duration " + quote(text)));
    }
    const std::string_view unitName = s.substr(0, unitLength);
    s.remove_prefix(unitLength);
    const std::optional<uint64_t> unit = unitNanos(unitName);
    if (!unit) {
      return fail(
          Error::invalid("time: unknown unit " + quote(unitName) + " in duration " + quote(text)));
    }
    if (*whole > kMaxMagnitude / *unit) {
      return fail(invalidDuration(text));
    }
    uint64_t v = *whole * *unit;
    if (fraction > 0) {
      // Go computes the fraction in float64; doing the same keeps results bit-identical.
      v += static_cast<uint64_t>(static_cast<double>(fraction) *
                                 (static_cast<double>(*unit) / scale));
      if (v > kMaxMagnitude) {
        return fail(invalidDuration(text));
      }
    }
    total += v;
    if (total > kMaxMagnitude) {
      return fail(invalidDuration(text));
    }
  }
  if (negative) {
    // -2^63 is representable; wrap-around negation of the magnitude yields it exactly.
    return Duration(std::chrono::nanoseconds(static_cast<int64_t>(~total + 1)));
  }
  if (total > kMaxMagnitude - 1) {
    return fail(invalidDuration(text));
  }
  return Duration(std::chrono::nanoseconds(static_cast<int64_t>(total)));
}

std::string Duration::toString() const {
  if (never_) {
    return std::string(kNever);
  }
  // Go's time.Duration.String(); the longest is "-2562047h47m16.854775808s".
  std::array<char, 32> buffer{};
  char* const end = buffer.data() + buffer.size();
  char* w = end;
  const int64_t count = value_.count();
  const bool negative = count < 0;
  uint64_t u = negative ? ~static_cast<uint64_t>(count) + 1 : static_cast<uint64_t>(count);

  if (u < kSecond) {
    // Below a second, use a smaller unit: "1.2ms", "1µs", "3ns".
    int precision = 0;
    *--w = 's';
    if (u == 0) {
      *--w = '0';
      return std::string(w, end);
    }
    if (u < kMicrosecond) {
      *--w = 'n';
    } else if (u < kMillisecond) {
      precision = 3;
      *--w = '\xb5';  // "µ" is 0xC2 0xB5 in UTF-8
      *--w = '\xc2';
    } else {
      precision = 6;
      *--w = 'm';
    }
    w = formatFraction(w, u, precision);
    w = formatInt(w, u);
  } else {
    *--w = 's';
    w = formatFraction(w, u, 9);
    w = formatInt(w, u % 60);  // whole seconds
    u /= 60;
    if (u > 0) {
      *--w = 'm';
      w = formatInt(w, u % 60);
      u /= 60;
      // Hours are the largest unit: days vary in length.
      if (u > 0) {
        *--w = 'h';
        w = formatInt(w, u);
      }
    }
  }
  if (negative) {
    *--w = '-';
  }
  return std::string(w, end);
}

}  // namespace nodewright::core
