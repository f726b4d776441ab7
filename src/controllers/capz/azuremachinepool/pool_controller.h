#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/machine_pool.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine_pool.h"
#include "controllers/capz/azuremachinepool/instances.h"
#include "controllers/capz/azuremachinepool/scale_set.h"
#include "controllers/capz/service.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPZ's AzureMachinePool controller: the scale set behind a CAPI MachinePool. Waits (no error)
// for the owner MachinePool, the AzureCluster to be ready and the bootstrap data; adds the
// finalizer; runs the scalesets service (capacity = the MachinePool's replicas) and, once the
// scale set is Done, reports its instances (status.instances, replicas, spec.providerIDList)
// and keeps one AzureMachinePoolMachine per instance, owned by the pool. Delete: the scale set,
// then the finalizer. Futures and conditions are written after every pass.
namespace nodewright::controllers::capz::azuremachinepool {

inline constexpr const char* kPoolFinalizer = "azuremachinepool.infrastructure.cluster.x-k8s.io";
// CAPZ's label naming an AzureMachinePoolMachine's pool.
inline constexpr const char* kMachinePoolNameLabel =
    "azuremachinepool.infrastructure.cluster.x-k8s.io/machine-pool";

struct PoolControllerOptions {
  int workers = 10;
  std::chrono::milliseconds requeue{std::chrono::seconds(15)};
};

// Thread-safe as the runtime uses it. Every reference must outlive it.
class PoolController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "azuremachinepool";

  PoolController(kube::Client& client, ServiceRunner& runner, ScaleSetInstances& instances,
                 const core::Clock& clock, PoolControllerOptions options = {});

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // `as`: the reconciler registered in its place (a wrapper of this one, such as
  // runtime::CoalescingReconciler); null registers this one.
  runtime::Controller& setup(runtime::Manager& manager, runtime::Reconciler* as = nullptr);

 private:
  struct Owners {
    std::optional<api::capi::MachinePool> machinePool;
    std::optional<api::capz::AzureCluster> azureCluster;
    std::string clusterName;
    // The Cluster or its AzureCluster is confirmed NotFound: its managed resource group, and
    // the scale set in it, went with it.
    bool azureClusterGone = false;
  };
  kube::ApiResult<Owners> owners(const api::capz::AzureMachinePool& pool);
  runtime::Outcome reconcileNormal(api::capz::AzureMachinePool& pool, const Owners& owners);
  // Reports the instances and keeps the pool machines in step with them.
  core::Result<void> syncInstances(api::capz::AzureMachinePool& pool, const PoolScope& scope);
  kube::ApiStatus syncPoolMachines(const api::capz::AzureMachinePool& pool, const PoolScope& scope);
  runtime::Outcome reconcileDelete(api::capz::AzureMachinePool& pool, const Owners& owners);
  kube::ApiStatus persist(const api::capz::AzureMachinePool& pool, bool specChanged);
  kube::ApiStatus setFinalizer(const api::capz::AzureMachinePool& pool, bool present);
  void waiting(api::capz::AzureMachinePool& pool, const char* reason);

  kube::Client& client_;
  ServiceRunner& runner_;
  ScaleSetInstances& instances_;
  const core::Clock& clock_;
  const PoolControllerOptions options_;
};

}  // namespace nodewright::controllers::capz::azuremachinepool
