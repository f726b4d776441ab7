#pragma once

#include <memory>

#include "cloud/cloud_provider.h"
#include "core/clock.h"
#include "emulators/kubelet/binder.h"
#include "emulators/kubelet/daemonset_controller.h"
#include "emulators/kubelet/deployment_controller.h"
#include "emulators/kubelet/machine_sync.h"
#include "emulators/kubelet/node_lifecycle.h"
#include "emulators/kubelet/options.h"
#include "emulators/kubelet/pod_runner.h"
#include "emulators/kubelet/replicaset_controller.h"
#include "kube/client.h"
#include "runtime/manager.h"

// Embedded mode's stand-ins for what a real cluster runs beside a node provisioner: the node
// agent (kubelets and the cloud node-lifecycle controller for the cloud's machines, pod GC, and
// kube-scheduler's binding) and minimal Deployment, ReplicaSet and DaemonSet controllers. All
// are runtime Reconcilers on the caller's Manager; periodic work is requeueAfter on its clock.
//
//   runtime::Manager manager(client, options);
//   auto agent = kubelet::setupNodeAgent(manager, cloud, kubelet::NodeAgentOptions{});
//   auto workloads = kubelet::setupWorkloadControllers(manager);
//   manager.run(stop);  // `agent` and `workloads` must outlive this call
namespace nodewright::emulators::kubelet {

class NodeAgent {
 public:
  // `client`, `cloud` and `clock` must outlive it.
  NodeAgent(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
            NodeAgentOptions options);

  // Adds the agent's controllers (nodeagent-machines, -nodes, -pods and, with bindPods,
  // -binder) to `manager`. Call once, before manager.run().
  void setup(runtime::Manager& manager);

  Binder& binder() { return binder_; }

 private:
  const NodeAgentOptions options_;
  MachineSync machines_;
  NodeLifecycle nodes_;
  PodRunner pods_;
  Binder binder_;
};

class WorkloadControllers {
 public:
  // `client` and `clock` must outlive it.
  WorkloadControllers(kube::Client& client, const core::Clock& clock);

  // Adds the deployment, replicaset and daemonset controllers. Call once, before run().
  void setup(runtime::Manager& manager);

 private:
  DeploymentController deployments_;
  ReplicaSetController replicaSets_;
  DaemonSetController daemonSets_;
};

// Both on the manager's client and clock; the result must outlive manager.run().
std::unique_ptr<NodeAgent> setupNodeAgent(runtime::Manager& manager, cloud::CloudProvider& cloud,
                                          NodeAgentOptions options = {});
std::unique_ptr<WorkloadControllers> setupWorkloadControllers(runtime::Manager& manager);

}  // namespace nodewright::emulators::kubelet
