#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace nodewright::core {

// A Kubernetes resource.Quantity (k8s.io/apimachinery/pkg/api/resource): an exact decimal with a
// suffix style (DecimalSI "1k", BinarySI "1Ki", DecimalExponent "1e3"). Values are held exactly
// in nano units, the finest precision apimachinery keeps; parsing rounds a finer non-zero value
// away from zero ("0.1n" -> "1n").
//
// Canonical formatting follows apimachinery: the format of the parsed suffix is kept, the
// largest suffix that keeps an integer mantissa is chosen, and fractions are shown with the
// milli/micro/nano unit that represents them exactly ("1.5" -> "1500m", "1.5Gi" -> "1536Mi").
// A BinarySI value below 1024 in magnitude or with a fractional part is shown as DecimalSI.
//
// Range: parsing rejects magnitudes of 1e29 or more (kMaxNanos); like apimachinery, a BinarySI
// value is silently capped at 2^63-1 ("8Ei" parses as 9223372036854775807). Arithmetic
// saturates at +-kMaxNanos rather than wrapping.
//
// A value type; not synchronised.
class Quantity {
 public:
  enum class Format { DecimalSI, BinarySI, DecimalExponent };

  // Largest magnitude held, in nano units: 10^38 - 1, i.e. just below 1e29.
  static constexpr __int128 kMaxNanos =
      static_cast<__int128>(10'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL - 1;

  Quantity() = default;

  // Parses "100m", "1Gi", "1.5", "2e3", "+1Ki". Invalid with apimachinery's message on failure:
  // the grammar regular expression for malformed text, "unable to parse quantity's suffix" for
  // an unknown suffix ("1e", "1KK"), and an out-of-range message for magnitudes of 1e29 or more.
  static Result<Quantity> parse(std::string_view text);
  // An integer quantity in the given format.
  static Quantity fromInt(int64_t value, Format format = Format::DecimalSI);
  static Quantity fromMilli(int64_t milli, Format format = Format::DecimalSI);

  // Canonical text, e.g. "1500m", "1Gi", "2k".
  std::string toString() const;

  // Value rounded up to an integer, away from zero (like Quantity.Value()). Saturates at the
  // int64 limits where apimachinery would overflow.
  int64_t value() const;
  // Value in thousandths rounded up, away from zero (like Quantity.MilliValue()). Saturates.
  int64_t milliValue() const;
  // Nearest double (like AsApproximateFloat64()).
  double asDouble() const;
  // The exact value in nano units.
  __int128 nanoValue() const { return value_; }
  bool isZero() const { return value_ == 0; }
  Format format() const { return format_; }

  // Like Quantity.Add/Sub: the result keeps this format, or takes other's when this is zero.
  Quantity operator+(const Quantity& other) const;
  Quantity operator-(const Quantity& other) const;
  Quantity operator-() const;
  Quantity& operator+=(const Quantity& other) { return *this = *this + other; }
  Quantity& operator-=(const Quantity& other) { return *this = *this - other; }

  // Numeric comparison; the suffix style does not take part.
  std::strong_ordering operator<=>(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return (*this <=> other) == 0; }

 private:
  // Exact value = value_ * 10^-9 (nano units); |value_| <= kMaxNanos.
  __int128 value_ = 0;
  Format format_ = Format::DecimalSI;
};

}  // namespace nodewright::core
