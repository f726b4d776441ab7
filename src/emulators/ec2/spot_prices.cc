#include "emulators/ec2/spot_prices.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/hash.h"
#include "emulators/engine/random.h"

namespace nodewright::emulators::ec2 {
namespace {

// The pool's base fraction lies in the middle of the range and each step's jitter moves it by
// up to this much either way; the sum is clamped to the range.
constexpr double kBaseLow = 0.35;
constexpr double kBaseHigh = 0.6;
constexpr double kJitter = 0.1;

// Uniform in [0, 1), fixed by (type, zone, salt).
double unitHash(std::string_view type, std::string_view zone, uint64_t salt) {
  core::Hasher h;
  h.addString(type);
  h.addString(zone);
  h.addU64(salt);
  // FNV alone mixes the last bytes poorly; one SplitMix64 round spreads them over all bits.
  return RandomStream(h.value()).unit();
}

}  // namespace

int64_t spotPriceStepIndex(core::TimePoint at) {
  return std::chrono::floor<std::chrono::hours>(at.time_since_epoch()).count() /
         kSpotPriceStep.count();
}

core::TimePoint spotPriceStepStart(int64_t step) {
  return core::TimePoint(kSpotPriceStep * step);
}

std::optional<double> spotPriceAtStep(const InstanceTypeInfo& type, std::string_view zone,
                                      int64_t step) {
  if (!type.onDemandPrice || *type.onDemandPrice <= 0) {
    return std::nullopt;
  }
  const double base = kBaseLow + (kBaseHigh - kBaseLow) * unitHash(type.name, zone, 0);
  // Salt 0 is the base; steps use 1 + the step index (as unsigned, so negative steps differ).
  const double jitter =
      kJitter * (2 * unitHash(type.name, zone, 1 + static_cast<uint64_t>(step)) - 1);
  const double fraction = std::clamp(base + jitter, kSpotMinFraction, kSpotMaxFraction);
  const double price = std::round(*type.onDemandPrice * fraction * 10000) / 10000;
  return std::max(price, 0.0001);
}

std::optional<double> spotPrice(const InstanceTypeInfo& type, std::string_view zone,
                                core::TimePoint at) {
  return spotPriceAtStep(type, zone, spotPriceStepIndex(at));
}

std::string formatSpotPrice(double price) {
  return fmt::format("{:.6f}", price);
}

}  // namespace nodewright::emulators::ec2
