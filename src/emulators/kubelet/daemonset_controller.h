#pragma once

#include <vector>

#include "api/core/apps.h"
#include "api/core/node.h"
#include "core/clock.h"
#include "emulators/kubelet/expectations.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// A minimal DaemonSet controller: one pod per registered Node (no karpenter.sh/unregistered
// taint) that matches the template's node selector and required affinity and whose NoSchedule
// and NoExecute taints it tolerates, with the DaemonSet controller's automatic tolerations; pods
// are created with spec.nodeName set. Pods on Nodes that are gone, or that no longer tolerate a
// NoExecute taint or match, are deleted. Status: desired, current, misscheduled, ready.
namespace nodewright::emulators::kubelet {

class DaemonSetController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "daemonset";

  // `client` and `clock` must outlive it.
  DaemonSetController(kube::Client& client, const core::Clock& clock);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  runtime::Controller& setup(runtime::Manager& manager);

 private:
  kube::Client& client_;
  Expectations expectations_;
  const kube::Cache* sets_ = nullptr;   // set by setup()
  const kube::Cache* pods_ = nullptr;   // set by setup()
  const kube::Cache* nodes_ = nullptr;  // set by setup()
};

// The tolerations the DaemonSet controller adds to every daemon pod (not-ready and unreachable
// NoExecute, the pressure and unschedulable NoSchedule taints).
std::vector<api::corev1::Toleration> daemonTolerations(const api::corev1::PodSpec& spec);

struct DaemonPlacement {
  bool shouldRun = false;       // a new pod may start there
  bool shouldContinue = false;  // a pod there may keep running (NoSchedule taints ignored)
};
DaemonPlacement daemonPlacement(const api::corev1::DaemonSet& set, const api::corev1::Node& node);

}  // namespace nodewright::emulators::kubelet
