#include "core/clock.h"

namespace nodewright::core {

TimePoint SystemClock::now() const {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

std::chrono::steady_clock::time_point SystemClock::steadyNow() const {
  return std::chrono::steady_clock::now();
}

void SystemClock::waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                            std::chrono::steady_clock::time_point deadline) const {
  cv.wait_until(lock, deadline);
}

const Clock& systemClock() {
  static const SystemClock clock;
  return clock;
}

FakeClock::FakeClock(TimePoint start) : now_(start), steady_() {}

TimePoint FakeClock::now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

std::chrono::steady_clock::time_point FakeClock::steadyNow() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steady_;
}

void FakeClock::waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          std::chrono::steady_clock::time_point deadline) const {
  if (steadyNow() >= deadline) {
    return;
  }
  cv.wait_for(lock, std::chrono::milliseconds(1));
}

void FakeClock::advance(std::chrono::microseconds by) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ += by;
  steady_ += by;
}

}  // namespace nodewright::core
