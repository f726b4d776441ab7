#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "api/capz/azure_machine_pool.h"
#include "controllers/capz/azuremachinepool/scale_set.h"
#include "controllers/capz/service.h"
#include "core/clock.h"
#include "kube/client.h"
#include "lro/engine.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPZ's AzureMachinePoolMachine controller: one instance of an AzureMachinePool's scale set.
// It reports the instance (provisioningState, instanceName, latestModelApplied, ready, VMRunning)
// and, when the object is deleted, deletes that instance (seed 004's story 3): the VMRunning
// condition says Deleting from the first reconcile, the DELETE's future is stored in status, and
// the finalizer goes once ARM has removed the instance (the scale set then runs one fewer).
namespace nodewright::controllers::capz::azuremachinepool {

inline constexpr const char* kPoolMachineFinalizer =
    "azuremachinepoolmachine.infrastructure.cluster.x-k8s.io";

struct PoolMachineControllerOptions {
  int workers = 10;
  // While the instance is not ready (watches do not see ARM).
  std::chrono::milliseconds requeue{std::chrono::seconds(15)};
};

// Thread-safe as the runtime uses it. Every reference must outlive it.
class PoolMachineController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "azuremachinepoolmachine";

  PoolMachineController(kube::Client& client, ServiceRunner& runner, lro::Engine& engine,
                        const core::Clock& clock, PoolMachineControllerOptions options = {});

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // `as`: the reconciler registered in its place (a wrapper of this one, such as
  // runtime::CoalescingReconciler); null registers this one.
  runtime::Controller& setup(runtime::Manager& manager, runtime::Reconciler* as = nullptr);

 private:
  struct Owners {
    api::capz::AzureMachinePool pool;  // at least its name, when the pool is gone
    std::optional<api::capz::AzureCluster> azureCluster;
    std::string clusterName;
    // The Cluster or its AzureCluster is confirmed NotFound: its managed resource group, and
    // the instance in it, went with it.
    bool azureClusterGone = false;
  };
  // nullopt: no owner AzureMachinePool yet.
  kube::ApiResult<std::optional<Owners>> owners(const api::capz::AzureMachinePoolMachine& machine);
  runtime::Outcome observe(api::capz::AzureMachinePoolMachine& machine, const PoolScope& scope);
  runtime::Outcome remove(api::capz::AzureMachinePoolMachine& machine, const PoolScope& scope);
  kube::ApiStatus persist(const api::capz::AzureMachinePoolMachine& machine);
  kube::ApiStatus setFinalizer(const api::capz::AzureMachinePoolMachine& machine, bool present);

  kube::Client& client_;
  ServiceRunner& runner_;
  lro::Engine& engine_;
  const core::Clock& clock_;
  const PoolMachineControllerOptions options_;
};

}  // namespace nodewright::controllers::capz::azuremachinepool
