#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "core/clock.h"
#include "core/token_bucket.h"

namespace nodewright::emulators {

// A bucket class's limits, as clouds publish them: EC2's RunInstances bucket holds 5 requests
// and refills 2 a second.
struct BucketSpec {
  int size = 0;
  double refillPerSecond = 0;
};

// Request-rate limits per (bucket class, caller): every caller (an access key) has its own
// buckets, as on EC2. Buckets fill on the injected clock. Thread-safe.
class Throttle {
 public:
  explicit Throttle(const core::Clock& clock);

  // Defines or redefines a class; callers' buckets of a redefined class start full again.
  // REQUIRES: spec.size > 0 and spec.refillPerSecond > 0.
  void define(std::string bucketClass, BucketSpec spec);
  // Takes a token from the caller's bucket of the class; false when it is empty. A class never
  // defined does not limit.
  bool allow(std::string_view bucketClass, std::string_view caller);

 private:
  using Key = std::pair<std::string, std::string>;

  const core::Clock& clock_;
  std::mutex mu_;
  std::map<std::string, BucketSpec, std::less<>> specs_;                    // GUARDED_BY(mu_)
  std::map<Key, std::unique_ptr<core::TokenBucket>, std::less<>> buckets_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::emulators
