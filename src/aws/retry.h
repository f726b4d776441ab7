#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>

#include "aws/error.h"
#include "core/clock.h"

// Retries as the AWS SDKs' "standard" mode does them: jittered exponential backoff, at most a
// few attempts, and a retry quota shared by every call of a client, so an endpoint that keeps
// failing sees fewer requests, not maxAttempts times as many.
namespace nodewright::aws {

// Blocks the calling thread for a duration. Production code waits on the injected clock;
// tests that run on a FakeClock pass one that advances it.
using SleepFn = std::function<void(std::chrono::nanoseconds)>;

// Waits `d` of `clock`'s steady time (a FakeClock: until someone advances it that far).
SleepFn clockSleep(const core::Clock& clock);

struct RetryOptions {
  int maxAttempts = 3;  // the first attempt included; 1 disables retries
  // Backoff before retry n (n = 1, 2, ...) is drawn from [0, min(maxDelay, base·2^(n-1))] ("full
  // jitter"); throttles use the larger base and draw from the upper half of that range, so a
  // throttled caller always slows down.
  std::chrono::milliseconds baseDelay{100};
  std::chrono::milliseconds throttleBaseDelay{1000};
  std::chrono::milliseconds maxDelay{20000};
  // The retry quota: a retry costs retryCost tokens (timeoutCost after a request that timed
  // out) and is refused when the quota has too few; a call that succeeds gives back what its
  // last retry took, or noRetryIncrement when it needed no retry, up to quotaCapacity.
  int quotaCapacity = 500;
  int retryCost = 5;
  int timeoutCost = 10;
  int noRetryIncrement = 1;
  uint64_t seed = 0;  // for the jitter; 0 seeds from std::random_device
};

// One call's retry state, kept by the caller between attempts.
struct RetryState {
  int attempts = 0;  // attempts made so far
  int heldCost = 0;  // quota tokens taken by the latest retry
};

// Decides whether and when to retry. Thread-safe; one per client.
class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options = {});

  // After attempt state.attempts failed with `error`: the delay before the next attempt, having
  // taken its quota tokens into state.heldCost; nullopt when the error is not retryable, the
  // attempts are used up or the quota is short.
  std::optional<std::chrono::nanoseconds> nextDelay(RetryState& state, const ApiError& error);
  // The call succeeded.
  void succeeded(const RetryState& state);

  // The upper bound of the backoff before retry n (1-based), before jitter.
  std::chrono::nanoseconds maxBackoff(int retry, bool throttled) const;
  int quotaAvailable() const;
  const RetryOptions& options() const { return options_; }

 private:
  const RetryOptions options_;
  mutable std::mutex mu_;
  int quota_;               // GUARDED_BY(mu_)
  std::mt19937_64 random_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::aws
