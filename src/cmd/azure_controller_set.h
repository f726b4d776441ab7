#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cloud/azure/arm_client.h"
#include "cloud/azure/credentials.h"
#include "cloud/azure/transport.h"
#include "controllers/capi/controllers.h"
#include "controllers/capz/azurecluster_controller.h"
#include "controllers/capz/azuremachine_controller.h"
#include "controllers/capz/azuremachinepool/instances.h"
#include "controllers/capz/azuremachinepool/pool_controller.h"
#include "controllers/capz/azuremachinepool/pool_machine_controller.h"
#include "controllers/capz/service.h"
#include "core/error.h"
#include "lro/engine.h"
#include "runtime/coalescing.h"
#include "runtime/manager.h"

// Cluster API on Azure on one manager: the CAPI core controllers (Cluster, MachineDeployment,
// MachineSet, Machine, MachinePool and the minimal bootstrap provider) and the CAPZ controllers
// (AzureCluster, AzureMachine, AzureMachinePool, AzureMachinePoolMachine), over one ARM client and
// one futures engine. `nodewright up` runs it against its ARM emulator.
namespace nodewright::cmd {

struct AzureControllerSetOptions {
  std::string armEndpoint;  // https://HOST:PORT
  // The Entra authority (AZURE_AUTHORITY_HOST); empty: armEndpoint, as the emulator serves both.
  std::string authorityHost;
  std::string caPem;  // trusted instead of the system store (the emulator's CA); may be empty
  std::string tenantId;
  std::string clientId;
  std::string clientSecret;  // never logged
  // Workload identity instead of a secret: the projected service account token to exchange.
  std::string federatedTokenFile{};
  lro::EngineOptions lro;
  controllers::capz::RunnerOptions runner;
  controllers::capi::CapiOptions capi;
  controllers::capz::AzureClusterControllerOptions azureClusters;
  controllers::capz::AzureMachineControllerOptions azureMachines;
  controllers::capz::azuremachinepool::PoolControllerOptions azureMachinePools;
  controllers::capz::azuremachinepool::PoolMachineControllerOptions azureMachinePoolMachines;
  // Of one listing of a scale set's instances, every page included.
  std::chrono::milliseconds listTimeout{std::chrono::seconds(10)};
  // CAPZ's --debouncing-timer for the four CAPZ controllers (runtime::CoalescingReconciler):
  // repeats of a settled reconcile within it wait for its end. Zero: off.
  std::chrono::milliseconds debouncingTimer{0};
};

class AzureControllerSet {
 public:
  // Registers every controller with `manager` (before it runs). The manager's client and
  // `clock` must outlive the set.
  static core::Result<std::unique_ptr<AzureControllerSet>> create(
      runtime::Manager& manager, const core::Clock& clock, AzureControllerSetOptions options);
  ~AzureControllerSet();

  lro::Engine& engine() { return *engine_; }

 private:
  AzureControllerSet() = default;

  // `inner` behind a CoalescingReconciler that reads `own`'s cache, kept by the set; null (no
  // wrapper) when `window` is zero.
  runtime::Reconciler* debounce(kube::Informer& own, runtime::Reconciler& inner,
                                const core::Clock& clock, std::chrono::milliseconds window);

  cloud::azure::TransportPtr transport_;
  cloud::azure::TokenCredentialPtr credential_;
  std::unique_ptr<cloud::azure::ArmClient> arm_;
  std::unique_ptr<lro::Engine> engine_;
  std::unique_ptr<controllers::capz::ServiceRunner> runner_;
  std::unique_ptr<controllers::capi::CapiControllers> capi_;
  std::unique_ptr<controllers::capz::AzureClusterController> azureClusters_;
  std::unique_ptr<controllers::capz::AzureMachineController> azureMachines_;
  controllers::capz::azuremachinepool::ScaleSetInstancesPtr scaleSetInstances_;
  std::unique_ptr<controllers::capz::azuremachinepool::PoolController> azureMachinePools_;
  std::unique_ptr<controllers::capz::azuremachinepool::PoolMachineController>
      azureMachinePoolMachines_;
  // Last: the wrappers go before the controllers they wrap.
  std::vector<std::unique_ptr<runtime::CoalescingReconciler>> debounced_;
};

}  // namespace nodewright::cmd
