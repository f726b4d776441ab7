#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "core/time.h"

namespace nodewright::core {

// The one way to read time. Only SystemClock touches the system clock; tests use FakeClock.
// Thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Monotonic time for timeouts and backoff.
  virtual std::chrono::steady_clock::time_point steadyNow() const = 0;
  // Blocks on `cv` until notified or until steadyNow() reaches `deadline`; may wake early, so
  // callers loop on their condition. A fake clock's time moves only by advance(), so it waits
  // briefly and returns, and its waiters see advanced time promptly.
  virtual void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         std::chrono::steady_clock::time_point deadline) const = 0;
};
using ClockPtr = std::unique_ptr<Clock>;

class SystemClock final : public Clock {
 public:
  TimePoint now() const override;
  std::chrono::steady_clock::time_point steadyNow() const override;
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 std::chrono::steady_clock::time_point deadline) const override;
};

// The process-wide system clock, for code that has no injected one (tools, tests of I/O).
const Clock& systemClock();

// Time moves only when advance() is called.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::seconds(1700000000)));
  TimePoint now() const override;
  std::chrono::steady_clock::time_point steadyNow() const override;
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 std::chrono::steady_clock::time_point deadline) const override;
  void advance(std::chrono::microseconds by);

 private:
  mutable std::mutex mu_;
  TimePoint now_;
  std::chrono::steady_clock::time_point steady_;
};

}  // namespace nodewright::core
