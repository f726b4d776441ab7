#include "aws/retry.h"

#include <algorithm>

#include "aws/error_class.h"
#include "aws/transport.h"
#include "core/sleep.h"

namespace nodewright::aws {

SleepFn clockSleep(const core::Clock& clock) {
  return [&clock](std::chrono::nanoseconds d) { core::sleepFor(clock, d); };
}

RetryPolicy::RetryPolicy(RetryOptions options)
    : options_(options),
      quota_(options.quotaCapacity),
      random_(options.seed != 0 ? options.seed : std::random_device{}()) {}

std::chrono::nanoseconds RetryPolicy::maxBackoff(int retry, bool throttled) const {
  const std::chrono::nanoseconds base = throttled ? options_.throttleBaseDelay : options_.baseDelay;
  const std::chrono::nanoseconds cap = options_.maxDelay;
  std::chrono::nanoseconds d = base;
  for (int i = 1; i < retry && d < cap; ++i) {
    d *= 2;
  }
  return std::min(d, cap);
}

std::optional<std::chrono::nanoseconds> RetryPolicy::nextDelay(RetryState& state,
                                                               const ApiError& error) {
  if (!retryable(error) || state.attempts >= options_.maxAttempts) {
    return std::nullopt;
  }
  const bool throttled = classify(error) == ErrorClass::Throttled;
  const int cost = error.code == kRequestTimeout ? options_.timeoutCost : options_.retryCost;
  const std::chrono::nanoseconds top = maxBackoff(state.attempts, throttled);
  std::lock_guard lock(mu_);
  if (quota_ < cost) {
    return std::nullopt;
  }
  quota_ -= cost;
  state.heldCost = cost;
  const int64_t hi = top.count();
  const int64_t lo = throttled ? hi / 2 : 0;
  std::uniform_int_distribution<int64_t> jitter(lo, hi);
  return std::chrono::nanoseconds(jitter(random_));
}

void RetryPolicy::succeeded(const RetryState& state) {
  std::lock_guard lock(mu_);
  const int refund = state.heldCost > 0 ? state.heldCost : options_.noRetryIncrement;
  quota_ = std::min(options_.quotaCapacity, quota_ + refund);
}

int RetryPolicy::quotaAvailable() const {
  std::lock_guard lock(mu_);
  return quota_;
}

}  // namespace nodewright::aws
