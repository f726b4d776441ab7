#include "runtime/coalescing.h"

#include <utility>

namespace nodewright::runtime {

ObjectVersion versionOf(const api::ObjectMeta& meta) {
  ObjectVersion version;
  version.generation = meta.generation;
  version.deleting = meta.deletionTimestamp.has_value();
  for (const api::OwnerReference& owner : meta.ownerReferences) {
    version.metadata += "owner " + owner.kind + "/" + owner.name + "/" + owner.uid + "\n";
  }
  for (const auto& [key, value] : meta.labels) {
    version.metadata += "label " + key + "=" + value + "\n";
  }
  for (const auto& [key, value] : meta.annotations) {
    version.metadata += "annotation " + key + "=" + value + "\n";
  }
  return version;
}

CoalescingReconciler::CoalescingReconciler(Reconciler& inner, const core::Clock& clock,
                                           std::chrono::milliseconds window, VersionLookup lookup)
    : inner_(inner), clock_(clock), window_(window), lookup_(std::move(lookup)) {}

Outcome CoalescingReconciler::reconcile(const Request& request, Context& context) {
  if (window_ <= std::chrono::milliseconds::zero()) {
    return inner_.reconcile(request, context);
  }
  const std::string key = request.key();
  // Read before the reconcile: a change that lands while it runs differs from what it saw, so
  // the next request for the key is not deferred.
  const std::optional<ObjectVersion> version = lookup_ ? lookup_(request) : std::nullopt;
  {
    std::lock_guard lock(mu_);
    const auto now = clock_.steadyNow();
    auto it = successes_.find(key);
    if (it != successes_.end()) {
      const auto windowEnd = it->second.at + window_;
      if (now < windowEnd && version && *version == it->second.version) {
        ++deferred_;
        return Result::after(windowEnd - now);
      }
      successes_.erase(it);
    }
  }
  Outcome outcome = inner_.reconcile(request, context);
  // Only a success that asked for nothing more opens a window: work still in progress (a
  // requeue, a future being polled) and errors keep their own timing.
  const bool settled =
      outcome && !outcome->requeue && outcome->requeueAfter <= std::chrono::nanoseconds::zero();
  if (settled && version) {
    std::lock_guard lock(mu_);
    const auto now = clock_.steadyNow();
    pruneLocked(now);
    successes_[key] = Success{now, *version};
  }
  return outcome;
}

uint64_t CoalescingReconciler::deferred() const {
  std::lock_guard lock(mu_);
  return deferred_;
}

void CoalescingReconciler::pruneLocked(std::chrono::steady_clock::time_point now) {
  for (auto it = successes_.begin(); it != successes_.end();) {
    if (it->second.at + window_ <= now) {
      it = successes_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace nodewright::runtime
