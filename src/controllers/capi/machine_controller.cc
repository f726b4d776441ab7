#include "controllers/capi/machine_controller.h"

#include <algorithm>

#include "api/capi/conditions.h"
#include "api/codec.h"
#include "controllers/capi/bootstrap.h"
#include "controllers/capi/teardown.h"
#include "controllers/capi/watches.h"
#include "controllers/capi/well_known.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"

namespace nodewright::controllers::capi {
namespace {

using api::capi::Machine;
using runtime::Outcome;
using runtime::Result;

bool sameStatus(const api::capi::MachineStatus& a, const api::capi::MachineStatus& b) {
  return api::toJson(a) == api::toJson(b);
}

}  // namespace

MachineController::MachineController(kube::Client& client, const core::Clock& clock,
                                     std::vector<const api::KindInfo*> infrastructureKinds)
    : client_(client),
      clock_(clock),
      machines_(client),
      infrastructureKinds_(std::move(infrastructureKinds)) {}

Outcome MachineController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto got = machines_.get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Result::done()
               : runtime::apiFailure(got.error(), "reading Machine " + request.key());
  }
  Machine machine = std::move(*got);
  if (machine.metadata.deletionTimestamp) {
    return finalize(std::move(machine), context);
  }
  if (auto added = runtime::addFinalizer(machines_, machine, kMachineFinalizer); !added) {
    return runtime::apiFailure(added.error(), "adding the finalizer of Machine " + request.key());
  }
  if (!context.leading()) {
    return Result::done();
  }

  const Machine before = machine;
  if (auto bootstrapped = reconcileBootstrap(machine); !bootstrapped) {
    return runtime::apiFailure(bootstrapped.error(),
                               "writing the bootstrap data of Machine " + request.key());
  }
  auto infra = reconcileInfrastructure(machine);
  if (!infra) {
    return runtime::apiFailure(infra.error(),
                               "reading the infrastructure of Machine " + request.key());
  }
  // spec and status are written through different endpoints; the spec first, so the status
  // write carries the stored resourceVersion.
  if (machine.spec.bootstrap.dataSecretName != before.spec.bootstrap.dataSecretName ||
      machine.spec.providerID != before.spec.providerID) {
    const api::capi::MachineStatus status = machine.status;
    auto written = machines_.update(machine);
    if (!written) {
      return runtime::apiFailure(written.error(), "updating Machine " + request.key());
    }
    machine = std::move(*written);
    machine.status = status;
  }
  updateStatus(machine, *infra);
  if (!sameStatus(machine.status, before.status)) {
    if (auto written = machines_.updateStatus(machine); !written) {
      return runtime::apiFailure(written.error(),
                                 "updating the status of Machine " + request.key());
    }
  }
  return Result::done();
}

kube::ApiStatus MachineController::reconcileBootstrap(Machine& machine) {
  auto& bootstrap = machine.spec.bootstrap;
  if (!bootstrap.dataSecretName && bootstrap.configRef) {
    auto name = ensureBootstrapSecret(
        client_, BootstrapOwner{"Machine", machine.metadata, machine.spec.clusterName,
                                machine.spec.version});
    if (!name) {
      return tl::unexpected(name.error());
    }
    bootstrap.dataSecretName = *name;
  }
  machine.status.bootstrapReady = bootstrap.dataSecretName.has_value();
  return {};
}

kube::ApiResult<std::optional<InfraContract>> MachineController::reconcileInfrastructure(
    Machine& machine) {
  if (machine.spec.infrastructureRef.name.empty()) {
    return std::nullopt;
  }
  auto object = getExternal(client_, machine.spec.infrastructureRef, machine.metadata.namespace_);
  if (!object) {
    if (object.error().is(kube::Reason::NotFound)) {
      return std::nullopt;
    }
    return tl::unexpected(object.error());
  }
  auto adopted = adoptExternal(client_, *object, controllerRef("Machine", machine.metadata),
                               {{api::capi::kClusterNameLabel, machine.spec.clusterName}});
  if (!adopted) {
    return tl::unexpected(adopted.error());
  }
  InfraContract contract = readContract(*adopted);
  if (contract.providerID && !machine.spec.providerID) {
    machine.spec.providerID = contract.providerID;
  }
  return contract;
}

void MachineController::updateStatus(Machine& machine,
                                     const std::optional<InfraContract>& infra) const {
  const core::Time now(clock_.now());
  auto& status = machine.status;
  if (infra) {
    // As CAPI: once ready, a Machine's infrastructure stays ready; a later problem shows up as
    // a failure, not as a Machine going back to provisioning.
    status.infrastructureReady = status.infrastructureReady || infra->ready;
    if (!infra->addresses.empty()) {
      status.addresses = infra->addresses;
    }
    if (infra->failureReason) {
      status.failureReason = infra->failureReason;
    }
    if (infra->failureMessage) {
      status.failureMessage = infra->failureMessage;
    }
  } else if (status.infrastructureReady) {
    status.failureReason = "InvalidConfiguration";
    status.failureMessage = "Machine infrastructure resource " +
                            machine.spec.infrastructureRef.kind + " " +
                            machine.spec.infrastructureRef.name +
                            " has been deleted after "
                            "being ready";
  }
  status.observedGeneration = machine.metadata.generation;

  auto& conditions = status.conditions;
  if (status.bootstrapReady) {
    api::capi::markTrue(conditions, kBootstrapReadyCondition, now);
  } else {
    api::capi::markFalse(conditions, kBootstrapReadyCondition, kWaitingForDataSecretReason,
                         api::capi::kSeverityInfo, "", now);
  }
  const auto& ref = machine.spec.infrastructureRef;
  if (status.infrastructureReady) {
    api::capi::markTrue(conditions, kInfrastructureReadyCondition, now);
  } else {
    api::capi::markFalse(conditions, kInfrastructureReadyCondition, kWaitingForInfrastructureReason,
                         api::capi::kSeverityInfo,
                         infra ? ref.kind + " " + ref.name + " is not ready"
                               : ref.kind + " " + ref.name + " does not exist yet",
                         now);
  }
  if (status.failureReason || status.failureMessage) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition,
                         status.failureReason.value_or("Failed"), api::capi::kSeverityError,
                         status.failureMessage.value_or(""), now);
  } else if (!status.bootstrapReady) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kWaitingForDataSecretReason,
                         api::capi::kSeverityInfo, "", now);
  } else if (!status.infrastructureReady) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kWaitingForInfrastructureReason,
                         api::capi::kSeverityInfo, "", now);
  } else if (!machine.spec.providerID) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kWaitingForProviderIdReason,
                         api::capi::kSeverityInfo, "", now);
  } else {
    api::capi::markTrue(conditions, api::capi::kReadyCondition, now);
  }
  status.phase = machinePhase(machine);
}

// Infrastructure first (it may hold the VM that runs the bootstrap data), then the Secret, then
// the finalizer: a crash anywhere leaves the finalizer on and the next reconcile goes on.
Outcome MachineController::finalize(Machine machine, runtime::Context& context) {
  const std::string key = machine.metadata.namespace_ + "/" + machine.metadata.name;
  if (std::find(machine.metadata.finalizers.begin(), machine.metadata.finalizers.end(),
                kMachineFinalizer) == machine.metadata.finalizers.end()) {
    return Result::done();
  }
  const core::Time now(clock_.now());
  Machine deleting = machine;
  deleting.status.phase = kPhaseDeleting;
  api::capi::markFalse(deleting.status.conditions, api::capi::kReadyCondition, kDeletingReason,
                       api::capi::kSeverityInfo, "", now);
  if (!sameStatus(deleting.status, machine.status)) {
    auto written = machines_.updateStatus(deleting);
    if (!written) {
      return runtime::apiFailure(written.error(), "updating the status of Machine " + key);
    }
    machine = std::move(*written);
  }
  return releaseOwner(client_, machines_, machine, machine.spec.infrastructureRef,
                      kMachineFinalizer, "Machine", context);
}

runtime::Controller& MachineController::setup(runtime::Manager& manager,
                                              const CapiOptions& options) {
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options.machineConcurrency;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  kube::Informer& machines = manager.informerFor<Machine>();
  controller.watchFor(machines);
  for (const api::KindInfo* kind : infrastructureKinds_) {
    watchReferenced(controller, machines, manager.informer(*kind), "Machine",
                    [](const api::Object& object) -> std::optional<api::ObjectReference> {
                      const auto* machine = object.as<Machine>();
                      return machine ? std::optional(machine->spec.infrastructureRef)
                                     : std::nullopt;
                    });
  }
  return controller;
}

std::string machinePhase(const api::capi::Machine& machine) {
  const auto& status = machine.status;
  if (machine.metadata.deletionTimestamp) {
    return kPhaseDeleting;
  }
  if (status.failureReason || status.failureMessage) {
    return kPhaseFailed;
  }
  if (status.infrastructureReady && machine.spec.providerID) {
    return kPhaseRunning;
  }
  if (status.infrastructureReady) {
    return kPhaseProvisioned;
  }
  if (status.bootstrapReady) {
    return kPhaseProvisioning;
  }
  return kPhasePending;
}

}  // namespace nodewright::controllers::capi
