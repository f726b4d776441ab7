#pragma once

#include <memory>
#include <vector>

#include "controllers/capi/cluster_controller.h"
#include "controllers/capi/machine_controller.h"
#include "controllers/capi/machine_deployment_controller.h"
#include "controllers/capi/machine_pool_controller.h"
#include "controllers/capi/machine_set_controller.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"

// Wires the Cluster API core controllers (Cluster, MachineDeployment, MachineSet, Machine,
// MachinePool; the minimal bootstrap provider runs inside the Machine and MachinePool flows)
// into a Manager.
namespace nodewright::controllers::capi {

// The infrastructure kinds each core kind watches: the registry's kinds of the infrastructure
// providers nodewright carries (CAPZ: AzureCluster, AzureMachine, AzureMachinePool). The core
// controllers reach any provider kind through references; these only decide which changes
// wake them without a resync.
struct InfrastructureKinds {
  std::vector<const api::KindInfo*> cluster;
  std::vector<const api::KindInfo*> machine;
  std::vector<const api::KindInfo*> machinePool;
};
InfrastructureKinds infrastructureKinds(const api::Registry& registry);

// Owns the reconcilers the manager runs; keep it alive until manager.run() has returned.
class CapiControllers {
 public:
  CapiControllers(kube::Client& client, const core::Clock& clock, const InfrastructureKinds& kinds);
  CapiControllers(const CapiControllers&) = delete;
  CapiControllers& operator=(const CapiControllers&) = delete;

  ClusterController& cluster() { return cluster_; }
  MachineDeploymentController& machineDeployment() { return machineDeployment_; }
  MachineSetController& machineSet() { return machineSet_; }
  MachineController& machine() { return machine_; }
  MachinePoolController& machinePool() { return machinePool_; }

 private:
  ClusterController cluster_;
  MachineDeploymentController machineDeployment_;
  MachineSetController machineSet_;
  MachineController machine_;
  MachinePoolController machinePool_;
};

// Registers capi.cluster, capi.machinedeployment, capi.machineset, capi.machine and
// capi.machinepool with `manager` (before manager.run()). `client` and `clock` must outlive
// the result.
[[nodiscard]] std::unique_ptr<CapiControllers> setupCapiControllers(
    runtime::Manager& manager, kube::Client& client, const core::Clock& clock,
    const CapiOptions& options = {});

}  // namespace nodewright::controllers::capi
