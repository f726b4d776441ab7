#include "emulators/engine/throttle.h"

#include "core/check.h"

namespace nodewright::emulators {

Throttle::Throttle(const core::Clock& clock) : clock_(clock) {}

void Throttle::define(std::string bucketClass, BucketSpec spec) {
  NW_CHECK(spec.size > 0 && spec.refillPerSecond > 0);
  std::lock_guard lock(mu_);
  std::erase_if(buckets_, [&](const auto& entry) { return entry.first.first == bucketClass; });
  specs_.insert_or_assign(std::move(bucketClass), spec);
}

bool Throttle::allow(std::string_view bucketClass, std::string_view caller) {
  // The token is taken under the lock too, as define() may drop the bucket once it is released.
  std::lock_guard lock(mu_);
  auto spec = specs_.find(bucketClass);
  if (spec == specs_.end()) {
    return true;
  }
  Key key(bucketClass, caller);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    auto bucket = std::make_unique<core::TokenBucket>(clock_, spec->second.refillPerSecond,
                                                      spec->second.size);
    it = buckets_.emplace(std::move(key), std::move(bucket)).first;
  }
  return it->second->tryTake();
}

}  // namespace nodewright::emulators
