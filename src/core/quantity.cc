#include "core/quantity.h"

#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

namespace nodewright::core {
namespace {

using U128 = unsigned __int128;

// The messages apimachinery's ParseQuantity returns (ErrFormatWrong, ErrSuffix), so that errors
// read the same as the API server's.
constexpr std::string_view kFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";

constexpr int64_t kNanosPerUnit = 1'000'000'000;
// apimachinery caps a parsed BinarySI quantity at 2^63-1 whole units.
constexpr U128 kMaxBinaryNanos =
    static_cast<U128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;
// Exponents beyond this move any non-zero value out of range (or below one nano), so clamping
// to it keeps exponent arithmetic in int64 without changing any result.
constexpr int64_t kExponentClamp = int64_t{1} << 40;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

struct Suffix {
  int base = 10;  // 10 or 2
  int64_t exponent = 0;
  Quantity::Format format = Quantity::Format::DecimalSI;
};

// The shape apimachinery's scanner accepts after the number: [eEinumkKMGTP]*[-+]?[0-9]*.
bool suffixHasValidShape(std::string_view suffix) {
  size_t i = 0;
  while (i < suffix.size() &&
         std::string_view("eEinumkKMGTP").find(suffix[i]) != std::string_view::npos) {
    ++i;
  }
  if (i < suffix.size() && (suffix[i] == '+' || suffix[i] == '-')) {
    ++i;
  }
  while (i < suffix.size() && isDigit(suffix[i])) {
    ++i;
  }
  return i == suffix.size();
}

// Parses [+-]?[0-9]+ into an int64 like strconv.ParseInt(s, 10, 64).
std::optional<int64_t> parseInt64(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) {
    return std::nullopt;
  }
  // Accumulate the magnitude; the most negative int64 is one past the largest positive.
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t magnitude = 0;
  for (char c : text) {
    if (!isDigit(c)) {
      return std::nullopt;
    }
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      return std::nullopt;
    }
    magnitude = magnitude * 10 + digit;
  }
  if (negative) {
    return magnitude == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                            : -static_cast<int64_t>(magnitude);
  }
  return static_cast<int64_t>(magnitude);
}

std::optional<Suffix> interpretSuffix(std::string_view suffix) {
  using Format = Quantity::Format;
  struct Named {
    std::string_view text;
    Suffix suffix;
  };
  static constexpr std::array<Named, 16> kNamed = {{
      {"", {10, 0, Format::DecimalSI}},
      {"n", {10, -9, Format::DecimalSI}},
      {"u", {10, -6, Format::DecimalSI}},
      {"m", {10, -3, Format::DecimalSI}},
      {"k", {10, 3, Format::DecimalSI}},
      {"M", {10, 6, Format::DecimalSI}},
      {"G", {10, 9, Format::DecimalSI}},
      {"T", {10, 12, Format::DecimalSI}},
      {"P", {10, 15, Format::DecimalSI}},
      {"E", {10, 18, Format::DecimalSI}},
      {"Ki", {2, 10, Format::BinarySI}},
      {"Mi", {2, 20, Format::BinarySI}},
      {"Gi", {2, 30, Format::BinarySI}},
      {"Ti", {2, 40, Format::BinarySI}},
      {"Pi", {2, 50, Format::BinarySI}},
      {"Ei", {2, 60, Format::BinarySI}},
  }};
  for (const Named& named : kNamed) {
    if (named.text == suffix) {
      return named.suffix;
    }
  }
  // "E" alone is exa (above); "e3", "E-3", "e+3" are decimal exponents.
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    if (auto exponent = parseInt64(suffix.substr(1))) {
      return Suffix{10, *exponent, Format::DecimalExponent};
    }
  }
  return std::nullopt;
}

// Multiplies a decimal digit string in place by 2^bits.
void multiplyByPowerOfTwo(std::string& digits, int bits) {
  while (bits > 0) {
    const int step = bits < 20 ? bits : 20;
    const uint64_t factor = uint64_t{1} << step;
    uint64_t carry = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
      const uint64_t product = static_cast<uint64_t>(*it - '0') * factor + carry;
      *it = static_cast<char>('0' + product % 10);
      carry = product / 10;
    }
    while (carry > 0) {
      digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
      carry /= 10;
    }
    bits -= step;
  }
}

// Accumulates decimal digits into an unsigned value no larger than limit.
std::optional<U128> accumulate(std::string_view digits, U128 limit) {
  U128 value = 0;
  for (char c : digits) {
    const U128 digit = static_cast<U128>(c - '0');
    if (value > (limit - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

// The magnitude digits * 10^exponent in nano units, rounded up to a whole nano (apimachinery
// rounds a finer non-zero value away from zero). digits is non-empty with no leading zero.
// Returns nullopt when the result exceeds limit.
std::optional<U128> toNanos(std::string_view digits, int64_t exponent, U128 limit) {
  const int64_t shift = exponent + 9;
  if (shift >= 0) {
    // digits has no leading zero, so it is at least 10^(size-1); limit is below 10^39.
    if (static_cast<int64_t>(digits.size()) + shift > 39) {
      return std::nullopt;
    }
    auto value = accumulate(digits, limit);
    for (int64_t i = 0; value && i < shift; ++i) {
      if (*value > limit / 10) {
        return std::nullopt;
      }
      *value *= 10;
    }
    return value;
  }
  const int64_t dropped = -shift;
  if (dropped >= static_cast<int64_t>(digits.size())) {
    return U128{1};  // digits is non-zero and entirely below a nano
  }
  const size_t kept = digits.size() - static_cast<size_t>(dropped);
  auto value = accumulate(digits.substr(0, kept), limit);
  if (value && digits.substr(kept).find_first_not_of('0') != std::string_view::npos) {
    if (*value == limit) {
      return std::nullopt;
    }
    *value += 1;
  }
  return value;
}

std::string toDecimal(U128 value) {
  if (value == 0) {
    return "0";
  }
  std::string out;
  while (value > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  }
  return out;
}

U128 magnitude(__int128 value) {
  return value < 0 ? static_cast<U128>(0) - static_cast<U128>(value) : static_cast<U128>(value);
}

// a + b clamped to +-kMaxNanos. The true sum of two in-range values can exceed 128 bits.
__int128 saturatingAdd(__int128 a, __int128 b) {
  __int128 sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return a < 0 ? -Quantity::kMaxNanos : Quantity::kMaxNanos;
  }
  if (sum > Quantity::kMaxNanos) {
    return Quantity::kMaxNanos;
  }
  if (sum < -Quantity::kMaxNanos) {
    return -Quantity::kMaxNanos;
  }
  return sum;
}

// ceil(|value| / divisor) with the sign of value, saturated to int64.
int64_t roundAwayFromZero(__int128 value, int64_t divisor) {
  const U128 mag = magnitude(value);
  U128 result = mag / static_cast<U128>(divisor);
  if (mag % static_cast<U128>(divisor) != 0) {
    ++result;
  }
  if (value < 0) {
    constexpr U128 kMinMagnitude = U128{1} << 63;
    return result >= kMinMagnitude ? std::numeric_limits<int64_t>::min()
                                   : -static_cast<int64_t>(result);
  }
  constexpr U128 kMax = static_cast<U128>(std::numeric_limits<int64_t>::max());
  return result >= kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(result);
}

std::string decimalSuffix(int exponent, Quantity::Format format) {
  if (format == Quantity::Format::DecimalSI) {
    switch (exponent) {
      case -9:
        return "n";
      case -6:
        return "u";
      case -3:
        return "m";
      case 0:
        return "";
      case 3:
        return "k";
      case 6:
        return "M";
      case 9:
        return "G";
      case 12:
        return "T";
      case 15:
        return "P";
      case 18:
        return "E";
      default:
        // DecimalSI has no suffix past "E"; apimachinery falls back to an exponent.
        break;
    }
  }
  return exponent == 0 ? "" : "e" + std::to_string(exponent);
}

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) {
    return fail(Error::invalid(std::string(kFormatError)));
  }
  size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++pos;
  }
  const size_t wholeStart = pos;
  while (pos < text.size() && isDigit(text[pos])) {
    ++pos;
  }
  const std::string_view whole = text.substr(wholeStart, pos - wholeStart);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const size_t fractionStart = ++pos;
    while (pos < text.size() && isDigit(text[pos])) {
      ++pos;
    }
    fraction = text.substr(fractionStart, pos - fractionStart);
  }
  const std::string_view suffixText = text.substr(pos);
  // apimachinery reads a number without digits ("Gi", ".", "-") as zero; the grammar and the
  // CRD schema pattern both require a digit, so it is rejected here.
  if ((whole.empty() && fraction.empty()) || !suffixHasValidShape(suffixText)) {
    return fail(Error::invalid(std::string(kFormatError)));
  }
  const std::optional<Suffix> suffix = interpretSuffix(suffixText);
  if (!suffix) {
    return fail(Error::invalid(std::string(kSuffixError)));
  }

  Quantity result;
  result.format_ = suffix->format;
  std::string digits;
  digits.reserve(whole.size() + fraction.size());
  digits.append(whole).append(fraction);
  const size_t firstSignificant = digits.find_first_not_of('0');
  if (firstSignificant == std::string::npos) {
    return result;  // zero keeps the parsed format ("0Ki" is BinarySI)
  }
  digits.erase(0, firstSignificant);
  const auto fractionDigits = static_cast<int64_t>(fraction.size());

  U128 nanos = 0;
  if (suffix->base == 2) {
    multiplyByPowerOfTwo(digits, static_cast<int>(suffix->exponent));
    nanos = toNanos(digits, -fractionDigits, kMaxBinaryNanos).value_or(kMaxBinaryNanos);
    if (nanos < static_cast<U128>(kNanosPerUnit)) {
      // A non-zero binary quantity below one is shown in DecimalSI, as apimachinery does.
      result.format_ = Format::DecimalSI;
    }
  } else {
    int64_t exponent = suffix->exponent;
    exponent = exponent > kExponentClamp ? kExponentClamp : exponent;
    exponent = exponent < -kExponentClamp ? -kExponentClamp : exponent;
    const std::optional<U128> scaled = toNanos(digits, exponent - fractionDigits, kMaxNanos);
    if (!scaled) {
      return fail(Error::invalid("quantity \"" + std::string(text) +
                                 "\" is out of range: the magnitude must be less than 1e29"));
    }
    nanos = *scaled;
  }
  result.value_ = negative ? -static_cast<__int128>(nanos) : static_cast<__int128>(nanos);
  return result;
}

Quantity Quantity::fromInt(int64_t value, Format format) {
  Quantity q;
  q.value_ = static_cast<__int128>(value) * kNanosPerUnit;
  q.format_ = format;
  return q;
}

Quantity Quantity::fromMilli(int64_t milli, Format format) {
  Quantity q;
  q.value_ = static_cast<__int128>(milli) * (kNanosPerUnit / 1000);
  q.format_ = format;
  return q;
}

std::string Quantity::toString() const {
  if (value_ == 0) {
    return "0";
  }
  const std::string sign = value_ < 0 ? "-" : "";
  const U128 nanos = magnitude(value_);
  constexpr auto kUnit = static_cast<U128>(kNanosPerUnit);

  Format format = format_;
  if (format == Format::BinarySI && (nanos < 1024 * kUnit || nanos % kUnit != 0)) {
    // Below 1024, or with a fraction, a binary suffix would round; show it exactly instead.
    format = Format::DecimalSI;
  }
  if (format == Format::BinarySI) {
    static constexpr std::array<std::string_view, 7> kBinarySuffixes = {"",   "Ki", "Mi", "Gi",
                                                                        "Ti", "Pi", "Ei"};
    U128 mantissa = nanos / kUnit;
    size_t power = 0;
    while (power + 1 < kBinarySuffixes.size() && mantissa % 1024 == 0) {
      mantissa /= 1024;
      ++power;
    }
    return sign + toDecimal(mantissa) + std::string(kBinarySuffixes[power]);
  }

  // The smallest mantissa with an exponent that is a multiple of three.
  U128 mantissa = nanos;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {
    mantissa *= 10;  // cannot overflow: only undoes divisions made above
    --exponent;
  }
  return sign + toDecimal(mantissa) + decimalSuffix(exponent, format);
}

int64_t Quantity::value() const {
  return roundAwayFromZero(value_, kNanosPerUnit);
}

int64_t Quantity::milliValue() const {
  return roundAwayFromZero(value_, kNanosPerUnit / 1000);
}

double Quantity::asDouble() const {
  return static_cast<double>(static_cast<long double>(value_) / kNanosPerUnit);
}

Quantity Quantity::operator+(const Quantity& other) const {
  Quantity result;
  result.format_ = isZero() ? other.format_ : format_;
  result.value_ = saturatingAdd(value_, other.value_);
  return result;
}

Quantity Quantity::operator-(const Quantity& other) const {
  Quantity result;
  result.format_ = isZero() ? other.format_ : format_;
  result.value_ = saturatingAdd(value_, -other.value_);
  return result;
}

Quantity Quantity::operator-() const {
  Quantity result = *this;
  result.value_ = -value_;
  return result;
}

std::strong_ordering Quantity::operator<=>(const Quantity& other) const {
  if (value_ < other.value_) {
    return std::strong_ordering::less;
  }
  if (value_ > other.value_) {
    return std::strong_ordering::greater;
  }
  return std::strong_ordering::equal;
}

}  // namespace nodewright::core
