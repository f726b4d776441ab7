#pragma once

#include <chrono>
#include <mutex>

#include "core/clock.h"

namespace nodewright::core {

// A token bucket on the injected clock: `qps` tokens a second, at most `burst` saved up.
// Thread-safe. Used for client-side QPS limits and work-queue admission.
class TokenBucket {
 public:
  TokenBucket(const Clock& clock, double qps, int burst);

  // Takes a token now if one is there.
  bool tryTake();
  // Takes a token, possibly one not yet earned, and returns how long the caller must wait
  // before using it (zero when one was there). Reservations queue fairly in call order.
  std::chrono::nanoseconds reserve();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void refill(std::chrono::steady_clock::time_point now);

  const Clock& clock_;
  const double qps_;
  const int burst_;
  std::mutex mu_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

// Exponential backoff, base·2^n capped at `max`, as client-go's per-item rate limiter.
struct ExponentialBackoff {
  std::chrono::nanoseconds base;
  std::chrono::nanoseconds max;

  std::chrono::nanoseconds delay(int failures) const;
};

}  // namespace nodewright::core
