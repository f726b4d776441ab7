#include "emulators/arm/rate_limits.h"

#include <algorithm>
#include <cmath>

namespace nodewright::emulators::arm {
namespace {

constexpr size_t kSweepAt = 1024;

}  // namespace

BucketLimits armLimits(RequestClass c) {
  switch (c) {
    case RequestClass::Reads:
      return {250, 25};
    case RequestClass::Writes:
    case RequestClass::Deletes:
      return {200, 10};
  }
  return {};
}

const char* remainingHeader(RequestClass c) {
  switch (c) {
    case RequestClass::Reads:
      return "x-ms-ratelimit-remaining-subscription-reads";
    case RequestClass::Writes:
      return "x-ms-ratelimit-remaining-subscription-writes";
    case RequestClass::Deletes:
      return "x-ms-ratelimit-remaining-subscription-deletes";
  }
  return "";
}

const char* className(RequestClass c) {
  switch (c) {
    case RequestClass::Reads:
      return "read";
    case RequestClass::Writes:
      return "write";
    case RequestClass::Deletes:
      return "delete";
  }
  return "";
}

ArmRateLimits::ArmRateLimits(const core::Clock& clock, double timeScale)
    : clock_(clock), timeScale_(timeScale), sweepAt_(kSweepAt) {}

double ArmRateLimits::refilled(const BucketLimits& limits, double tokens,
                               std::chrono::steady_clock::duration elapsed) const {
  const double emulatedSeconds =
      std::max(0.0, std::chrono::duration<double>(elapsed).count()) * timeScale_;
  return std::min(limits.size, tokens + emulatedSeconds * limits.refillPerSecond);
}

Admission ArmRateLimits::take(RequestClass c, std::string_view subscription,
                              std::string_view principal, bool enforce) {
  const BucketLimits limits = armLimits(c);
  const auto now = clock_.steadyNow();
  std::lock_guard lock(mu_);
  Key key(c, std::string(subscription), std::string(principal));
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= sweepAt_) {
      sweepLocked(now);
      sweepAt_ = std::max(kSweepAt, 2 * buckets_.size());
    }
    it = buckets_.emplace(std::move(key), Bucket{limits.size, now}).first;
  }
  Bucket& b = it->second;
  b.tokens = refilled(limits, b.tokens, now - b.last);
  b.last = now;
  Admission out;
  if (!enforce) {
    out.remaining = static_cast<int64_t>(std::floor(b.tokens));
    return out;
  }
  if (b.tokens < 1) {
    out.allowed = false;
    out.retryAfter = std::chrono::microseconds(static_cast<int64_t>(
        std::ceil((1 - b.tokens) / limits.refillPerSecond / timeScale_ * 1e6)));
    return out;
  }
  b.tokens -= 1;
  out.remaining = static_cast<int64_t>(std::floor(b.tokens));
  return out;
}

size_t ArmRateLimits::bucketCount() {
  std::lock_guard lock(mu_);
  return buckets_.size();
}

void ArmRateLimits::sweepLocked(std::chrono::steady_clock::time_point now) {
  std::erase_if(buckets_, [&](const auto& entry) {
    const BucketLimits limits = armLimits(std::get<0>(entry.first));
    return refilled(limits, entry.second.tokens, now - entry.second.last) >= limits.size;
  });
}

}  // namespace nodewright::emulators::arm
