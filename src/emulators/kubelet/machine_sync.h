#pragma once

#include <mutex>
#include <set>
#include <string>

#include "cloud/cloud_provider.h"
#include "core/clock.h"
#include "emulators/kubelet/options.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// The kubelets' registration and the cloud node-lifecycle controller, for machines with no
// real kubelet: every running machine the cloud lists gets a Node once; the Node of a machine
// that is gone (not listed, shutting down or terminated) is deleted. One key, polled.
// Invariant: a machine is registered at most once per agent lifetime, so a Node that Karpenter
// deletes while its instance still runs (termination) is not brought back, as a real kubelet
// does not re-register until it restarts.
namespace nodewright::emulators::kubelet {

class MachineSync final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeagent-machines";
  static constexpr const char* kKey = "machines";

  // `client`, `cloud` and `clock` must outlive it.
  MachineSync(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
              const NodeAgentOptions& options);

  // runtime::Reconciler: list machines, delete Nodes of gone ones, register new ones, then
  // look again after the poll interval. A cloud error backs off.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Registers the controller and queues its first poll. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  core::Status deleteGoneNodes(const std::set<std::string>& live, runtime::Context& context);
  core::Status registerNode(const cloud::Machine& machine, runtime::Context& context);

  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  const NodeAgentOptions options_;
  const kube::Cache* nodes_ = nullptr;   // set by setup()
  const kube::Cache* claims_ = nullptr;  // set by setup()

  std::mutex mu_;
  std::set<std::string> registered_;  // GUARDED_BY(mu_), provider IDs
};

}  // namespace nodewright::emulators::kubelet
