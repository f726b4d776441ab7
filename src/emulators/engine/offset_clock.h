#pragma once

#include <atomic>
#include <chrono>

#include "core/clock.h"

namespace nodewright::emulators {

// A clock running ahead of its base by an offset, so an emulator restored from a state file
// never sees time go backwards: when the base clock is behind the time the state was saved at
// (a clock stepped back, a test's fresh FakeClock), the emulator continues from the saved time.
// Otherwise the offset stays 0 and timestamps stay the base clock's, which is what clients and
// the API server compare them with (see ScaledClock). Monotonic time and waits are the base's.
// Thread-safe; `base` must outlive it.
class OffsetClock final : public core::Clock {
 public:
  explicit OffsetClock(const core::Clock& base) : base_(base) {}

  // core::Clock
  core::TimePoint now() const override { return base_.now() + offset(); }
  std::chrono::steady_clock::time_point steadyNow() const override { return base_.steadyNow(); }
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 std::chrono::steady_clock::time_point deadline) const override {
    base_.waitUntil(lock, cv, deadline);
  }

  // Moves the offset so that now() is at least `point`; never moves now() back.
  void continueFrom(core::TimePoint point);
  std::chrono::microseconds offset() const {
    return std::chrono::microseconds(offset_.load(std::memory_order_relaxed));
  }

 private:
  const core::Clock& base_;
  std::atomic<int64_t> offset_{0};  // microseconds
};

}  // namespace nodewright::emulators
