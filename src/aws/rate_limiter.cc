#include "aws/rate_limiter.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace nodewright::aws {

RateLimiter::RateLimiter(const core::Clock& clock,
                         std::map<std::string, BucketLimits, std::less<>> limits,
                         std::function<std::string_view(std::string_view)> classOf,
                         RateLimiterOptions options)
    : clock_(clock), classOf_(std::move(classOf)) {
  const double factor = std::clamp(options.factor, 0.01, 1.0);
  for (const auto& [name, l] : limits) {
    BucketLimits scaled{std::max(1, static_cast<int>(std::floor(l.size * factor))),
                        l.refillPerSecond * factor};
    buckets_.emplace(name, Bucket{scaled, std::make_unique<core::TokenBucket>(
                                              clock_, scaled.refillPerSecond, scaled.size)});
  }
}

std::unique_ptr<RateLimiter> RateLimiter::ec2(const core::Clock& clock,
                                              RateLimiterOptions options) {
  return std::make_unique<RateLimiter>(clock, ec2BucketLimits(), ec2BucketClass, options);
}

std::optional<BucketLimits> RateLimiter::effectiveLimits(std::string_view action) const {
  auto it = buckets_.find(classOf_(action));
  if (it == buckets_.end()) {
    return std::nullopt;
  }
  return it->second.limits;
}

ApiResult<std::chrono::nanoseconds> RateLimiter::acquire(
    std::string_view action, std::chrono::steady_clock::time_point deadline, const SleepFn& sleep) {
  auto it = buckets_.find(classOf_(action));
  if (it == buckets_.end()) {
    return std::chrono::nanoseconds::zero();
  }
  const std::chrono::nanoseconds wait = it->second.tokens->reserve();
  if (wait <= std::chrono::nanoseconds::zero()) {
    return wait;
  }
  if (clock_.steadyNow() + wait > deadline) {
    return apiFail(
        "ClientRateLimited",
        fmt::format("{}: the client's rate limit would delay the request by {} ms, "
                    "past its deadline",
                    action, std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()),
        0);
  }
  sleep(wait);
  return wait;
}

}  // namespace nodewright::aws
