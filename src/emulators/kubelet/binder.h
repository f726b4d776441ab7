#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// kube-scheduler's role in embedded mode: binds pending pods (no node, not terminating, the
// default scheduler's) through pods/binding, first fit over the scheduler's filters (Planner).
// A pod that fits nowhere gets PodScheduled=False, reason Unschedulable, which is what a
// provisioner looks for. One key: every trigger (a pod pending or freeing resources, a node
// changing) runs one pass over all pending pods, not a reconcile per pod.
namespace nodewright::emulators::kubelet {

struct BinderStats {
  uint64_t passes = 0;
  uint64_t bound = 0;
  uint64_t unschedulable = 0;                // status writes
  std::chrono::nanoseconds lastPlanTime{0};  // the Planner's part of the last pass
};

class Binder final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeagent-binder";
  static constexpr const char* kKey = "pending-pods";

  // `client` and `clock` must outlive it.
  Binder(kube::Client& client, const core::Clock& clock);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  runtime::Controller& setup(runtime::Manager& manager);

  BinderStats stats() const;

 private:
  // A binding sent that the cache does not show yet, as kube-scheduler's assumed pods: it holds
  // its node's resources until the cache catches up, so the next pass does not overcommit.
  struct Assumed {
    std::string node;
    core::TimePoint at;
  };

  kube::ApiStatus bind(const api::corev1::Pod& pod, const std::string& node);
  kube::ApiStatus markUnschedulable(const api::corev1::Pod& pod, const std::string& message);

  kube::Client& client_;
  const core::Clock& clock_;
  const kube::Cache* pods_ = nullptr;   // set by setup()
  const kube::Cache* nodes_ = nullptr;  // set by setup()

  // Only the reconcile touches it, and one key is reconciled by one worker at a time.
  std::map<std::string, Assumed> assumed_;  // by pod uid

  mutable std::mutex mu_;
  BinderStats stats_;  // GUARDED_BY(mu_)
};

// A pod the default scheduler should place: no node, not terminating or finished.
bool isPendingForScheduler(const api::corev1::Pod& pod);

}  // namespace nodewright::emulators::kubelet
