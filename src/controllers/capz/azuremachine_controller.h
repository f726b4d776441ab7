#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "controllers/capz/azuremachine/machine_scope.h"
#include "controllers/capz/service.h"
#include "core/clock.h"
#include "kube/client.h"
#include "lro/engine.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPZ's AzureMachine controller: the Azure side of one CAPI Machine, through the machine's
// services (azuremachine/services.h) and the futures engine (seed 004).
//
// Create: waits (no error) for the owner Machine, then for the AzureCluster to be ready
// (VMRunning False WaitingForClusterInfrastructure) and the bootstrap data secret
// (WaitingForBootstrapData); adds the finalizer, runs one pass over the services and records it:
// futures and conditions after every pass, so another process resumes from the stored futures;
// spec.providerID, addresses, vmState and ready once the VM exists and every service is Done.
// A VM whose operation ended Failed shows VMProvisionFailed (Warning, the error in the message)
// and is PUT again after waitRequeue; a VM PUT that ARM refused (an invalid size or parameter)
// is terminal: failureReason/failureMessage are set and the machine is not reconciled again.
// Delete: the services in reverse, then the availability set if no VM is left in it, then the
// finalizer. Invariant: the finalizer is on the object before any Azure resource is requested.
namespace nodewright::controllers::capz {

inline constexpr const char* kAzureMachineFinalizer =
    "azuremachine.infrastructure.cluster.x-k8s.io";

struct AzureMachineControllerOptions {
  int workers = 10;  // CAPZ's --azuremachine-concurrency default
  // While waiting for the cluster's infrastructure or bootstrap data (watches usually come
  // first), and after a pass that gave no requeue time.
  std::chrono::milliseconds waitRequeue{std::chrono::seconds(15)};
};

// Thread-safe as the runtime uses it. `client`, `runner`, `engine` and `clock` must outlive it.
class AzureMachineController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "azuremachine";

  AzureMachineController(kube::Client& client, ServiceRunner& runner, lro::Engine& engine,
                         const core::Clock& clock, AzureMachineControllerOptions options = {});

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles AzureMachines on their own events and their owner Machines'. Call before
  // manager.run().
  // `as`: the reconciler registered in its place (a wrapper of this one, such as
  // runtime::CoalescingReconciler); null registers this one.
  runtime::Controller& setup(runtime::Manager& manager, runtime::Reconciler* as = nullptr);

 private:
  struct Owners {
    std::optional<api::capi::Machine> machine;
    std::optional<api::capz::AzureCluster> azureCluster;
    // The Cluster or its AzureCluster is confirmed NotFound (not merely unknown). CAPI deletes
    // them only after their machines; the AzureCluster's deletion took its managed resource
    // group, and everything in it, along.
    bool azureClusterGone = false;
    bool paused = false;
  };
  // The owner Machine, its Cluster and AzureCluster; absent ones are left empty.
  kube::ApiResult<Owners> owners(const api::capz::AzureMachine& machine);
  runtime::Outcome reconcileNormal(api::capz::AzureMachine& machine, const Owners& owners,
                                   runtime::Context& context);
  // The bootstrap data, nullopt while the Machine names no secret (or it does not exist yet).
  core::Result<std::optional<std::string>> bootstrapData(const api::capi::Machine& owner);
  azuremachine::MachineScope scopeFor(const api::capz::AzureMachine& machine,
                                      const Owners& owners) const;
  // One create pass, with the role assignment once the VM's identity is known.
  core::Result<Pass> runServices(api::capz::AzureMachine& machine,
                                 azuremachine::MachineScope& scope);
  runtime::Outcome reconcileDelete(api::capz::AzureMachine& machine, const Owners& owners);
  // Writes spec.providerID when it changed, then the whole status.
  // Writes the spec's providerID (when changed) and the status through machine's
  // resourceVersion (Conflict when it is stale); `machine` takes the new one.
  kube::ApiStatus persist(api::capz::AzureMachine& machine, bool providerIDChanged);
  kube::ApiStatus setFinalizer(const api::capz::AzureMachine& machine, bool present);
  runtime::Result after(const Pass& pass) const;

  kube::Client& client_;
  ServiceRunner& runner_;
  lro::Engine& engine_;
  const core::Clock& clock_;
  const AzureMachineControllerOptions options_;
};

}  // namespace nodewright::controllers::capz
