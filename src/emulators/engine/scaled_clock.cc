#include "emulators/engine/scaled_clock.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/check.h"

namespace nodewright::emulators {
namespace {

std::chrono::microseconds scale(std::chrono::microseconds d, double by) {
  const double us = std::round(static_cast<double>(d.count()) * by);
  // Saturate rather than overflow: a "never" sized latency stays huge instead of wrapping.
  constexpr auto kMax = static_cast<double>(std::numeric_limits<int64_t>::max() / 2);
  return std::chrono::microseconds(static_cast<int64_t>(std::clamp(us, -kMax, kMax)));
}

}  // namespace

ScaledClock::ScaledClock(const core::Clock& base, double factor) : base_(base), factor_(factor) {
  NW_CHECK(validFactor(factor));
}

core::Status ScaledClock::validFactor(double factor) {
  if (!std::isfinite(factor) || factor <= 0) {
    return core::fail(core::Error::invalid("time scale " + std::to_string(factor) +
                                           ": must be a finite number above 0"));
  }
  return core::ok();
}

std::chrono::microseconds ScaledClock::toReal(std::chrono::microseconds emulated) const {
  return scale(emulated, 1.0 / factor_);
}

std::chrono::microseconds ScaledClock::toEmulated(std::chrono::microseconds real) const {
  return scale(real, factor_);
}

}  // namespace nodewright::emulators
