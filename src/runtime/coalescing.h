#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/meta.h"
#include "core/clock.h"
#include "runtime/reconciler.h"

// CAPZ's --debouncing-timer (its coalescing reconciler): once a reconcile of a key succeeded and
// asked for nothing more, further reconciles of that key within the window are deferred to the
// window's end instead of run, so a burst of watch events (status writes of owned objects, a
// resync) costs one reconcile, not one each. A change of the object itself since that success
// (ObjectVersion) is never deferred: it must act at once.
namespace nodewright::runtime {

// What decides whether an object changed in a way that must not wait: its spec (generation),
// a delete, or the metadata other actors set (owner references, labels, annotations: a Machine
// adopting its AzureMachine, CAPI's paused annotation). The controller's own status writes
// change none of them.
struct ObjectVersion {
  int64_t generation = 0;
  bool deleting = false;  // deletionTimestamp set
  std::string metadata;   // owner references, labels and annotations, flattened
  bool operator==(const ObjectVersion&) const = default;
};
ObjectVersion versionOf(const api::ObjectMeta& meta);

// The object's current version (from an informer's cache), nullopt when it is not there.
// Called on worker threads: must be thread-safe.
using VersionLookup = std::function<std::optional<ObjectVersion>(const Request& request)>;

// Wraps `inner`; a window of zero or less passes every reconcile through. Thread-safe (a key is
// never reconciled by two workers at once, but different keys are). `inner` and `clock` must
// outlive it.
class CoalescingReconciler final : public Reconciler {
 public:
  CoalescingReconciler(Reconciler& inner, const core::Clock& clock,
                       std::chrono::milliseconds window, VersionLookup lookup);

  // runtime::Reconciler
  Outcome reconcile(const Request& request, Context& context) override;

  // Reconciles deferred so far (for tests and metrics).
  uint64_t deferred() const;

 private:
  struct Success {
    std::chrono::steady_clock::time_point at;
    ObjectVersion version;
  };

  // Drops successes whose window ended. REQUIRES mu_ held.
  void pruneLocked(std::chrono::steady_clock::time_point now);

  // Fixed after construction.
  Reconciler& inner_;
  const core::Clock& clock_;
  const std::chrono::milliseconds window_;
  const VersionLookup lookup_;

  mutable std::mutex mu_;
  std::map<std::string, Success> successes_;  // by key; GUARDED_BY(mu_)
  uint64_t deferred_ = 0;                     // GUARDED_BY(mu_)
};

}  // namespace nodewright::runtime
