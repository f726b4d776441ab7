#pragma once

#include <chrono>

#include "core/clock.h"
#include "core/error.h"

namespace nodewright::emulators {

// Time acceleration for demos: emulated durations (launch latencies, how long terminated
// resources stay visible) pass `factor` times faster in real time, so minutes take seconds.
// Timestamps stay the base clock's: clients compare them with their own clocks, and a launch
// time hours in the future would mislead them; only durations shrink. Reads only the injected
// clock. Thread-safe (immutable).
class ScaledClock {
 public:
  // REQUIRES: validFactor(factor) succeeds.
  ScaledClock(const core::Clock& base, double factor);

  // A factor must be finite and positive; 1 is real time.
  static core::Status validFactor(double factor);

  const core::Clock& base() const { return base_; }
  double factor() const { return factor_; }
  core::TimePoint now() const { return base_.now(); }

  // An emulated duration as it passes in real time (divided by the factor).
  std::chrono::microseconds toReal(std::chrono::microseconds emulated) const;
  // A real duration in emulated time (multiplied by the factor), for reporting.
  std::chrono::microseconds toEmulated(std::chrono::microseconds real) const;
  // When something that takes `emulated` and starts now is done.
  core::TimePoint after(std::chrono::microseconds emulated) const {
    return now() + toReal(emulated);
  }

 private:
  const core::Clock& base_;
  const double factor_;
};

}  // namespace nodewright::emulators
