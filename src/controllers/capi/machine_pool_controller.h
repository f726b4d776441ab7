#pragma once

#include <optional>
#include <vector>

#include "api/capi/machine_pool.h"
#include "controllers/capi/external.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPI's MachinePool controller: bootstrap data as for a Machine (bootstrap.h, Secret
// `<pool>-bootstrap`), adopts the infrastructure object (an AzureMachinePool, reached
// generically) and copies its spec.providerIDList, status.replicas, status.readyReplicas
// (status.replicas once it is ready, for providers without the field) and status.ready.
// Phases Pending -> Provisioning -> Provisioned -> Running, ScalingUp/ScalingDown while the
// provider's replicas differ from spec.replicas, Deleting, Failed. Deletion under the finalizer
// machinepool.cluster.x-k8s.io: the infrastructure object, then the bootstrap Secret.
namespace nodewright::controllers::capi {

// Thread-safe as the runtime uses it. `client` and `clock` must outlive it.
class MachinePoolController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "capi.machinepool";

  MachinePoolController(kube::Client& client, const core::Clock& clock,
                        std::vector<const api::KindInfo*> infrastructureKinds);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles MachinePools on their own events and their infrastructure objects'. Call before
  // manager.run().
  runtime::Controller& setup(runtime::Manager& manager, const CapiOptions& options);

 private:
  using MachinePool = api::capi::MachinePool;

  kube::ApiResult<std::optional<InfraContract>> reconcileInfrastructure(MachinePool& pool);
  void updateStatus(MachinePool& pool, const std::optional<InfraContract>& infra) const;
  runtime::Outcome finalize(MachinePool pool, runtime::Context& context);

  kube::Client& client_;
  const core::Clock& clock_;
  kube::Typed<MachinePool> pools_;
  const std::vector<const api::KindInfo*> infrastructureKinds_;
};

}  // namespace nodewright::controllers::capi
