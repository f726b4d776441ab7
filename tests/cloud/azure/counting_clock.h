#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/clock.h"

// A view of a FakeClock that sees who blocks on it, so a test moves time exactly when the code
// under test is waiting for it (and knows that it is), never by guessing with real sleeps.
namespace nodewright::cloud::azure::clocktest {

using SteadyTime = std::chrono::steady_clock::time_point;

class CountingClock final : public core::Clock {
 public:
  explicit CountingClock(core::FakeClock& fake) : fake_(fake) {}

  core::TimePoint now() const override { return fake_.now(); }
  SteadyTime steadyNow() const override { return fake_.steadyNow(); }
  // A wait whose deadline has not passed is counted (FakeClock's return after a moment and are
  // made again: each one counts) with its thread and deadline.
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTime deadline) const override {
    if (fake_.steadyNow() < deadline) {
      std::lock_guard<std::mutex> guard(mu_);
      ++waits_;
      waiters_.insert(std::this_thread::get_id());
      lastDeadline_ = deadline;
      changed_.notify_all();
    }
    fake_.waitUntil(lock, cv, deadline);
  }

  uint64_t waits() const {
    std::lock_guard<std::mutex> guard(mu_);
    return waits_;
  }

  // Blocks until `n` distinct threads have waited on the clock, or `limit` of real time
  // passed (a bound for broken code, not a synchronisation): whether they had.
  bool awaitWaiters(size_t n, std::chrono::milliseconds limit) const {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, limit, [&] { return waiters_.size() >= n; });
  }

  // Blocks until a wait beyond the first `seen` is made, or setStopped(true); that wait's
  // deadline, and in `seen` the count so far. nullopt once stopped.
  std::optional<SteadyTime> awaitWait(uint64_t& seen) const {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return waits_ > seen || stopped_; });
    if (stopped_) {
      return std::nullopt;
    }
    seen = waits_;
    return lastDeadline_;
  }

  // Ends awaitWait()s (true) or lets them block again (false).
  void setStopped(bool stopped) {
    std::lock_guard<std::mutex> guard(mu_);
    stopped_ = stopped;
    changed_.notify_all();
  }

 private:
  core::FakeClock& fake_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  mutable uint64_t waits_ = 0;                 // GUARDED_BY(mu_)
  mutable std::set<std::thread::id> waiters_;  // GUARDED_BY(mu_)
  mutable SteadyTime lastDeadline_{};          // GUARDED_BY(mu_)
  bool stopped_ = false;                       // GUARDED_BY(mu_)
};

// While it lives, advances the FakeClock to the deadline of each wait made on `clock`: time
// moves only while the code under test is blocked on it, and exactly as far as it asked.
// `onBlocked` runs first at each (changes the world while the client sleeps).
class AdvanceWhenBlocked {
 public:
  AdvanceWhenBlocked(CountingClock& clock, core::FakeClock& fake,
                     std::function<void()> onBlocked = {})
      : clock_(clock) {
    clock_.setStopped(false);
    // Counted here, not in the thread: a wait made before the thread runs is still seen.
    thread_ = std::thread(
        [this, &fake, seen = clock_.waits(), onBlocked = std::move(onBlocked)]() mutable {
          while (auto deadline = clock_.awaitWait(seen)) {
            const SteadyTime now = fake.steadyNow();
            if (*deadline <= now) {
              continue;
            }
            if (onBlocked) {
              onBlocked();
            }
            fake.advance(std::chrono::duration_cast<std::chrono::microseconds>(*deadline - now));
            ++advances_;
          }
        });
  }
  ~AdvanceWhenBlocked() {
    clock_.setStopped(true);
    thread_.join();
  }
  AdvanceWhenBlocked(const AdvanceWhenBlocked&) = delete;
  AdvanceWhenBlocked& operator=(const AdvanceWhenBlocked&) = delete;

  // How many times the clock was moved; call after the code under test returned.
  int advances() const { return advances_; }

 private:
  CountingClock& clock_;
  std::atomic<int> advances_{0};
  std::thread thread_;
};

}  // namespace nodewright::cloud::azure::clocktest
