#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "aws/ec2_buckets.h"
#include "aws/error.h"
#include "aws/retry.h"
#include "core/clock.h"
#include "core/token_bucket.h"

// Client-side request-rate limits under EC2's API throttling buckets, so the client waits for
// a token instead of spending a request (and a retry) on RequestLimitExceeded.
// https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html
namespace nodewright::aws {

struct RateLimiterOptions {
  // The share of each bucket the client uses: below 1 keeps a margin for other callers with
  // the same credentials and for clock drift between us and AWS.
  double factor = 0.9;
};

// One token bucket per class on the injected clock. Thread-safe; share one per account and
// region, as AWS's buckets are.
class RateLimiter {
 public:
  // Limits of each class; an action whose class is not there is not limited.
  RateLimiter(const core::Clock& clock, std::map<std::string, BucketLimits, std::less<>> limits,
              std::function<std::string_view(std::string_view action)> classOf,
              RateLimiterOptions options = {});
  // EC2's classes and limits.
  static std::unique_ptr<RateLimiter> ec2(const core::Clock& clock,
                                          RateLimiterOptions options = {});

  // Takes a token for `action`, waiting with `sleep` until it is earned. When it would not be
  // earned by `deadline` it returns ClientRateLimited (a Throttled error, httpStatus 0) at
  // once; the token stays taken, which only makes later callers wait a little longer. Returns
  // how long the caller waited.
  ApiResult<std::chrono::nanoseconds> acquire(std::string_view action,
                                              std::chrono::steady_clock::time_point deadline,
                                              const SleepFn& sleep);

  // The bucket's effective limits for `action`'s class, after the factor; nullopt when it is
  // not limited.
  std::optional<BucketLimits> effectiveLimits(std::string_view action) const;

 private:
  struct Bucket {
    BucketLimits limits;
    std::unique_ptr<core::TokenBucket> tokens;
  };

  const core::Clock& clock_;
  std::function<std::string_view(std::string_view)> classOf_;
  std::map<std::string, Bucket, std::less<>> buckets_;  // fixed after construction
};
using RateLimiterPtr = std::unique_ptr<RateLimiter>;

}  // namespace nodewright::aws
