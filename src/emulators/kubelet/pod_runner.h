#pragma once

#include "api/core/node.h"
#include "api/core/pod.h"
#include "core/clock.h"
#include "emulators/kubelet/options.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// The kubelets of the agent's Nodes, for pods, and the pod garbage collector: a pod bound to one
// of those Nodes starts (Running, Ready) once the Node is Ready; a terminating one is removed at
// once (its containers stop instantly); a pod bound to a Node that no longer exists is
// force-deleted, as kube-controller-manager's podgc does. One key per pod.
namespace nodewright::emulators::kubelet {

class PodRunner final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeagent-pods";

  // `client` and `clock` must outlive it.
  PodRunner(kube::Client& client, const core::Clock& clock, const NodeAgentOptions& options);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Watches pods, and Nodes for the pods bound to them (a Node turning Ready starts them, a
  // Node going away collects them). Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  runtime::Outcome collect(const api::corev1::Pod& pod, runtime::Context& context);
  runtime::Outcome forceDelete(const api::corev1::Pod& pod, runtime::Context& context);
  runtime::Outcome start(const api::corev1::Pod& pod, const api::corev1::Node& node);

  kube::Client& client_;
  const core::Clock& clock_;
  const NodeAgentOptions options_;
  const kube::Cache* pods_ = nullptr;   // set by setup()
  const kube::Cache* nodes_ = nullptr;  // set by setup()
};

}  // namespace nodewright::emulators::kubelet
