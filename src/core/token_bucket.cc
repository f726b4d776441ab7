#include "core/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace nodewright::core {

TokenBucket::TokenBucket(const Clock& clock, double qps, int burst)
    : clock_(clock),
      qps_(qps),
      burst_(std::max(burst, 1)),
      tokens_(burst_),
      last_(clock.steadyNow()) {}

void TokenBucket::refill(std::chrono::steady_clock::time_point now) {
  if (now <= last_) {
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

bool TokenBucket::tryTake() {
  std::lock_guard lock(mu_);
  refill(clock_.steadyNow());
  if (tokens_ < 1) {
    return false;
  }
  tokens_ -= 1;
  return true;
}

std::chrono::nanoseconds TokenBucket::reserve() {
  std::lock_guard lock(mu_);
  refill(clock_.steadyNow());
  tokens_ -= 1;
  if (tokens_ >= 0) {
    return std::chrono::nanoseconds(0);
  }
  if (qps_ <= 0) {
    return std::chrono::hours(24 * 365);
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(std::ceil(-tokens_ / qps_ * 1e9)));
}

std::chrono::nanoseconds ExponentialBackoff::delay(int failures) const {
  if (failures <= 0) {
    return base;
  }
  // 2^62 overflows nanoseconds long before; stop doubling once past the cap.
  std::chrono::nanoseconds d = base;
  for (int i = 0; i < failures && d < max; ++i) {
    d *= 2;
  }
  return std::min(d, max);
}

}  // namespace nodewright::core
