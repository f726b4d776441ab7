#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "core/clock.h"

// ARM's request limits: a token bucket per (subscription, principal) for each of reads, writes
// and deletes (ARM throttling: reads hold 250 and refill 25 a second, writes and deletes 200 and
// 10). Every answer reports what is left in x-ms-ratelimit-remaining-subscription-{reads,writes,
// deletes}; an empty bucket gives 429 with Retry-After. Buckets fill on the injected clock, in
// emulated time: with a time scale of 10 a second of real time refills ten seconds' worth, as the
// emulated world's operations run ten times faster too. A full bucket is forgotten (a new one
// starts full), so many principals cost no lasting memory.
// Thread-safe.
namespace nodewright::emulators::arm {

enum class RequestClass { Reads, Writes, Deletes };

struct BucketLimits {
  double size = 0;
  double refillPerSecond = 0;
};
BucketLimits armLimits(RequestClass c);
// "x-ms-ratelimit-remaining-subscription-reads"
const char* remainingHeader(RequestClass c);
// "read", "write", "delete": how ARM's throttling message names the class.
const char* className(RequestClass c);

struct Admission {
  bool allowed = true;
  int64_t remaining = 0;
  std::chrono::microseconds retryAfter{0};  // when refused: until a token is there
};

class ArmRateLimits {
 public:
  // REQUIRES: timeScale > 0 (the engine's, validated there).
  explicit ArmRateLimits(const core::Clock& clock, double timeScale = 1);

  // Takes a token when `enforce`; otherwise only reports what is left and always allows (the
  // fault configuration's throttling: false).
  Admission take(RequestClass c, std::string_view subscription, std::string_view principal,
                 bool enforce);
  // Buckets held (tests).
  size_t bucketCount();

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point last;
  };
  using Key = std::tuple<RequestClass, std::string, std::string>;

  // Drops the buckets that have refilled.
  void sweepLocked(std::chrono::steady_clock::time_point now);

  // Refills a bucket of `limits` over `elapsed` real time.
  double refilled(const BucketLimits& limits, double tokens,
                  std::chrono::steady_clock::duration elapsed) const;

  const core::Clock& clock_;
  const double timeScale_;
  std::mutex mu_;
  std::map<Key, Bucket> buckets_;  // GUARDED_BY(mu_)
  size_t sweepAt_;                 // GUARDED_BY(mu_): the bucket count of the next sweep
};

}  // namespace nodewright::emulators::arm
