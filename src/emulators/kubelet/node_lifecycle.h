#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/core/node.h"
#include "core/clock.h"
#include "emulators/kubelet/options.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// What a booting node's kubelet and its CNI DaemonSet do to the Node: post Ready=True once the
// ready delay has passed since registration (the heartbeat on the injected clock), and, once
// Karpenter has registered the node, remove the owning NodeClaim's startup taints after the
// startup-taint delay. Only Nodes this agent registered are touched. One key per Node.
// A Node with the kubelet-stopped fault (objects.h) gets Ready=Unknown instead, and nothing else
// until the fault is removed.
namespace nodewright::emulators::kubelet {

class NodeLifecycle final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeagent-nodes";

  // `client` and `clock` must outlive it.
  NodeLifecycle(kube::Client& client, const core::Clock& clock, const NodeAgentOptions& options);

  // runtime::Reconciler: Ready first, then startup taints; waits (requeueAfter on the clock) for
  // whichever delay has not passed yet.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Watches Nodes, and NodeClaims for their nodes (startup taints may be set after the node
  // registered). Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  // nullopt: done; else how long until Ready is due.
  core::Result<std::optional<std::chrono::nanoseconds>> markReady(const std::string& name);
  // Ready=Unknown, "Kubelet stopped posting node status." (the node lifecycle controller's).
  core::Status markUnknown(const std::string& name);
  core::Result<std::optional<std::chrono::nanoseconds>> removeStartupTaints(
      const api::corev1::Node& node);

  kube::Client& client_;
  const core::Clock& clock_;
  const NodeAgentOptions options_;
  const kube::Cache* nodes_ = nullptr;   // set by setup()
  const kube::Cache* claims_ = nullptr;  // set by setup()

  std::mutex mu_;
  // GUARDED_BY(mu_). When each Node was first seen registered, by uid.
  std::map<std::string, core::TimePoint> registeredAt_;
};

}  // namespace nodewright::emulators::kubelet
