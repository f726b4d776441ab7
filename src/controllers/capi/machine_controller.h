#pragma once

#include <vector>

#include "api/capi/machine.h"
#include "controllers/capi/external.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPI's Machine controller: brings a Machine's bootstrap data and its infrastructure object
// (an AzureMachine, reached generically) together and mirrors the infrastructure contract into
// the Machine: spec.providerID, status.addresses, status.infrastructureReady, failures.
// Phases Pending -> Provisioning (bootstrap data ready) -> Provisioned (infrastructure ready)
// -> Running (infrastructure ready and a providerID; embedded mode has no Node to wait for),
// Deleting, Failed. Conditions BootstrapReady, InfrastructureReady and their Ready summary.
// Invariant: the finalizer is on the Machine before it touches the infrastructure object, and
// comes off only once that object is gone and the bootstrap Secret it wrote is deleted.
namespace nodewright::controllers::capi {

// Thread-safe as the runtime uses it. `client` and `clock` must outlive it.
class MachineController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "capi.machine";

  // `infrastructureKinds`: the provider kinds whose changes wake their owning Machine.
  MachineController(kube::Client& client, const core::Clock& clock,
                    std::vector<const api::KindInfo*> infrastructureKinds);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles Machines on their own events and on those of the infrastructure objects they
  // reference (adopted or not yet). Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager, const CapiOptions& options);

 private:
  using Machine = api::capi::Machine;

  // Sets spec.bootstrap.dataSecretName (writing the Secret first) and status.bootstrapReady.
  kube::ApiStatus reconcileBootstrap(Machine& machine);
  // Adopts the infrastructure object and copies the contract fields; nullopt while it does not
  // exist.
  kube::ApiResult<std::optional<InfraContract>> reconcileInfrastructure(Machine& machine);
  void updateStatus(Machine& machine, const std::optional<InfraContract>& infra) const;
  runtime::Outcome finalize(Machine machine, runtime::Context& context);

  kube::Client& client_;
  const core::Clock& clock_;
  kube::Typed<Machine> machines_;
  const std::vector<const api::KindInfo*> infrastructureKinds_;
};

// The phase a Machine's status and deletion state add up to.
std::string machinePhase(const api::capi::Machine& machine);

}  // namespace nodewright::controllers::capi
