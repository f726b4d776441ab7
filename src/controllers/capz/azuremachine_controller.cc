#include "controllers/capz/azuremachine_controller.h"

#include <algorithm>

#include "api/capi/conditions.h"
#include "api/capz/conditions.h"
#include "api/core/secret.h"
#include "controllers/capz/azuremachine/machine_status.h"
#include "controllers/capz/azuremachine/services.h"
#include "controllers/capz/lookup.h"
#include "core/log.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"

namespace nodewright::controllers::capz {
namespace {

using api::capi::Cluster;
using api::capi::Machine;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using api::corev1::Secret;
using runtime::Outcome;
using runtime::Result;
namespace am = azuremachine;

// The Machine that owns an AzureMachine (CAPI's util.GetOwnerMachine).
std::optional<std::string> ownerMachineName(const AzureMachine& machine) {
  for (const auto& ref : machine.metadata.ownerReferences) {
    if (ref.kind == "Machine" && ref.apiVersion.starts_with(std::string(api::capi::kGroup) + "/")) {
      return ref.name;
    }
  }
  return std::nullopt;
}

bool hasFinalizer(const AzureMachine& machine) {
  return runtime::hasFinalizer(machine.metadata, kAzureMachineFinalizer);
}

std::string clusterNameOf(const AzureMachine& machine, const std::optional<Machine>& owner) {
  auto it = machine.metadata.labels.find(api::capi::kClusterNameLabel);
  if (it != machine.metadata.labels.end() && !it->second.empty()) {
    return it->second;
  }
  return owner ? owner->spec.clusterName : std::string();
}

}  // namespace

AzureMachineController::AzureMachineController(kube::Client& client, ServiceRunner& runner,
                                               lro::Engine& engine, const core::Clock& clock,
                                               AzureMachineControllerOptions options)
    : client_(client), runner_(runner), engine_(engine), clock_(clock), options_(options) {}

Outcome AzureMachineController::reconcile(const runtime::Request& request,
                                          runtime::Context& context) {
  auto got = kube::Typed<AzureMachine>(client_).get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Outcome(Result::done())
               : runtime::apiFailure(got.error(), "reading AzureMachine " + request.key());
  }
  AzureMachine& machine = *got;
  auto found = owners(machine);
  if (!found) {
    return runtime::apiFailure(found.error(), "reading the owners of " + request.key());
  }
  if (found->paused) {
    return Result::done();
  }
  if (machine.metadata.deletionTimestamp) {
    return reconcileDelete(machine, *found);
  }
  if (!found->machine) {
    return Result::done();  // the Machine controller has not set the owner reference yet
  }
  return reconcileNormal(machine, *found, context);
}

kube::ApiResult<AzureMachineController::Owners> AzureMachineController::owners(
    const AzureMachine& machine) {
  Owners out;
  const std::string& ns = machine.metadata.namespace_;
  if (auto name = ownerMachineName(machine)) {
    auto owner = findObject<Machine>(client_, ns, *name);
    if (!owner) {
      return tl::unexpected(owner.error());
    }
    out.machine = std::move(*owner);
  }
  const std::string clusterName = clusterNameOf(machine, out.machine);
  if (clusterName.empty()) {
    return out;
  }
  auto cluster = findObject<Cluster>(client_, ns, clusterName);
  if (!cluster) {
    return tl::unexpected(cluster.error());
  }
  if (!*cluster) {
    out.azureClusterGone = true;
    return out;
  }
  out.paused = (*cluster)->spec.paused;
  const auto& infra = (*cluster)->spec.infrastructureRef;
  if (infra && infra->kind == "AzureCluster") {
    auto azure = findObject<AzureCluster>(client_, ns, infra->name);
    if (!azure) {
      return tl::unexpected(azure.error());
    }
    out.azureCluster = std::move(*azure);
    out.azureClusterGone = !out.azureCluster.has_value();
  }
  return out;
}

Outcome AzureMachineController::reconcileNormal(AzureMachine& machine, const Owners& owners,
                                                runtime::Context& context) {
  const std::string key = machine.metadata.namespace_ + "/" + machine.metadata.name;
  if (!hasFinalizer(machine)) {
    // Through the resourceVersion read at the start, which `machine` then advances: the
    // pass's status write below conflicts if anyone else wrote in between.
    kube::Typed<AzureMachine> machines(client_);
    if (auto set = runtime::addFinalizer(machines, machine, kAzureMachineFinalizer); !set) {
      return runtime::apiFailure(set.error(), "adding the finalizer of AzureMachine " + key);
    }
  }
  if (machine.status.failureReason) {
    return Result::done();  // a terminal failure: only a new machine helps
  }
  const core::Time now(clock_.now());
  if (!owners.azureCluster || !owners.azureCluster->status.ready) {
    am::setVMRunningFalse(machine, am::kWaitingForClusterInfrastructureReason, now);
    am::setReadySummary(machine.status.conditions, now);
    if (auto written = persist(machine, false); !written) {
      return runtime::apiFailure(written.error(), "writing the status of AzureMachine " + key);
    }
    return Result::after(options_.waitRequeue);
  }
  auto data = bootstrapData(*owners.machine);
  if (!data) {
    return core::fail(data.error().wrap("reading the bootstrap data of AzureMachine " + key));
  }
  if (!*data) {
    am::setVMRunningFalse(machine, am::kWaitingForBootstrapDataReason, now);
    am::setReadySummary(machine.status.conditions, now);
    if (auto written = persist(machine, false); !written) {
      return runtime::apiFailure(written.error(), "writing the status of AzureMachine " + key);
    }
    return Result::after(options_.waitRequeue);
  }
  if (!context.leading()) {
    // Checked before any operation starts: a pass that began PUTs always records their
    // futures, or the next pass would send them again.
    return Result::done();
  }
  am::MachineScope scope = scopeFor(machine, owners);
  scope.bootstrapData = std::move(**data);
  const std::optional<std::string> providerIDBefore = machine.spec.providerID;
  auto pass = runServices(machine, scope);
  if (!pass) {
    // The machine cannot be built (no subnet for its role, a bad key): a spec problem.
    am::setVMRunningFalse(machine, am::kVMProvisionFailedReason, now, api::capi::kSeverityError,
                          pass.error().message());
    am::setReadySummary(machine.status.conditions, now);
    (void)persist(machine, false);
    return core::fail(pass.error().wrap("building the services of AzureMachine " + key));
  }
  // A VM that ARM has, though its PUT failed, was started and ended Failed: worth another PUT.
  // Only a VM ARM never took (the request refused) is a terminal failure.
  am::VmPutFailure failure = am::VmPutFailure::Refused;
  if (am::failedVmPut(*pass) != nullptr &&
      am::vmExists(engine_, scope) != std::optional<bool>(false)) {
    failure = am::VmPutFailure::Operation;
  }
  const core::Time observed(clock_.now());
  am::applyCreatePass(machine, scope, *pass, observed, failure);
  am::setReadySummary(machine.status.conditions, observed);
  if (auto written = persist(machine, machine.spec.providerID != providerIDBefore); !written) {
    return runtime::apiFailure(written.error(), "writing the status of AzureMachine " + key);
  }
  if (machine.status.failureReason) {
    return Result::done();
  }
  if (am::retryingProvisioning(machine)) {
    // CAPZ drops the failed operation's future and PUTs again on a later reconcile; the wait
    // keeps a failing region from being asked in a tight loop.
    core::logWarn(context.log(), "the VM failed to provision, trying again",
                  {{"after", options_.waitRequeue}});
    return Result::after(options_.waitRequeue);
  }
  return after(*pass);
}

core::Result<std::optional<std::string>> AzureMachineController::bootstrapData(
    const Machine& owner) {
  const auto& name = owner.spec.bootstrap.dataSecretName;
  if (!name || name->empty()) {
    return std::optional<std::string>();
  }
  auto secret = findObject<Secret>(client_, owner.metadata.namespace_, *name);
  if (!secret) {
    return tl::unexpected(secret.error().toError());
  }
  if (!*secret) {
    return std::optional<std::string>();
  }
  auto value = api::corev1::secretValue(**secret, "value");
  if (!value) {
    return tl::unexpected(value.error().wrap("secret " + *name));
  }
  return std::optional<std::string>(std::move(*value));
}

am::MachineScope AzureMachineController::scopeFor(const AzureMachine& machine,
                                                  const Owners& owners) const {
  am::MachineScope scope;
  scope.machine = &machine;
  scope.cluster = &*owners.azureCluster;
  scope.clusterName = clusterNameOf(machine, owners.machine);
  // A Machine's labels name its deployment; an orphaned AzureMachine carries the same ones.
  scope.machineLabels = owners.machine ? owners.machine->metadata.labels : machine.metadata.labels;
  if (owners.machine) {
    scope.machineName = owners.machine->metadata.name;
    scope.kubernetesVersion = owners.machine->spec.version;
    scope.machineFailureDomain = owners.machine->spec.failureDomain;
  }
  return scope;
}

core::Result<Pass> AzureMachineController::runServices(AzureMachine& machine,
                                                       am::MachineScope& scope) {
  auto services = am::machineServices(scope, am::Purpose::Create);
  if (!services) {
    return tl::unexpected(services.error());
  }
  auto& status = machine.status;
  Pass pass = runner_.reconcile(*services, status.longRunningOperationStates, status.conditions);
  if (!am::needsRoleAssignment(scope)) {
    return pass;
  }
  // The role assignment needs the principal ARM gave the VM's identity: known once the VM is.
  auto vm = am::observeVm(scope, pass);
  if (vm && vm->principalId) {
    scope.principalId = vm->principalId;
    am::combinePasses(pass,
                      runner_.reconcile(am::roleAssignmentServices(scope),
                                        status.longRunningOperationStates, status.conditions));
  } else {
    pass.done = false;
    api::capi::CapiCondition waiting;
    waiting.type = api::capz::kRoleAssignmentReadyCondition;
    waiting.status = "False";
    waiting.severity = api::capi::kSeverityInfo;
    waiting.reason = api::capz::kCreatingReason;
    waiting.message =
        vm ? "the VM's system-assigned identity has no principal yet" : "waiting for the VM";
    api::capi::setCondition(status.conditions, std::move(waiting), core::Time(clock_.now()));
  }
  return pass;
}

Outcome AzureMachineController::reconcileDelete(AzureMachine& machine, const Owners& owners) {
  const std::string key = machine.metadata.namespace_ + "/" + machine.metadata.name;
  if (!hasFinalizer(machine)) {
    return Result::done();
  }
  if (!owners.azureCluster) {
    if (!owners.azureClusterGone) {
      // Not known yet (no cluster name or infrastructure reference): the VM may exist, so the
      // finalizer stays until the AzureCluster can be read.
      return Result::after(options_.waitRequeue);
    }
    // The AzureCluster is gone, and its resource group with everything in it.
    if (auto removed = setFinalizer(machine, false); !removed) {
      return runtime::apiFailure(removed.error(), "removing the finalizer of " + key);
    }
    return Result::done();
  }
  am::MachineScope scope = scopeFor(machine, owners);
  auto services = am::machineServices(scope, am::Purpose::Delete);
  if (!services) {
    return core::fail(services.error().wrap("building the services of AzureMachine " + key));
  }
  auto& status = machine.status;
  status.ready = false;
  status.vmState = "Deleting";
  am::setVMRunningFalse(machine, api::capz::kDeletingReason, core::Time(clock_.now()));
  Pass pass = runner_.remove(*services, status.longRunningOperationStates, status.conditions);
  if (pass.done) {
    lro::Outcome set =
        am::removeAvailabilitySetIfUnused(engine_, scope, status.longRunningOperationStates);
    pass.done = set.done();
    if (!set.done() && set.requeueAfter) {
      pass.requeueAfter = set.requeueAfter;
    }
  }
  am::setReadySummary(status.conditions, core::Time(clock_.now()));
  if (auto written = persist(machine, false); !written) {
    return runtime::apiFailure(written.error(), "writing the status of AzureMachine " + key);
  }
  if (!pass.done) {
    return after(pass);
  }
  if (auto removed = setFinalizer(machine, false); !removed) {
    return runtime::apiFailure(removed.error(), "removing the finalizer of " + key);
  }
  return Result::done();
}

kube::ApiStatus AzureMachineController::persist(AzureMachine& machine, bool providerIDChanged) {
  // Both writes go through the resourceVersion this reconcile read (advanced by its own
  // writes): a replica working from an older read gets Conflict and requeues instead of
  // overwriting newer futures and conditions (CAPZ's patch helper would merge them).
  kube::Typed<AzureMachine> machines(client_);
  if (providerIDChanged) {
    auto written = machines.update(machine);
    if (!written) {
      return tl::unexpected(written.error());
    }
    machine.metadata = written->metadata;
  }
  auto written = machines.updateStatus(machine);
  if (!written) {
    return tl::unexpected(written.error());
  }
  machine.metadata = written->metadata;
  return {};
}

kube::ApiStatus AzureMachineController::setFinalizer(const AzureMachine& machine, bool present) {
  return runtime::setFinalizerWithRetry(client_, machine, kAzureMachineFinalizer, present);
}

Result AzureMachineController::after(const Pass& pass) const {
  if (pass.done) {
    return Result::done();
  }
  return Result::waiting(pass.requeueAfter.value_or(options_.waitRequeue));
}

runtime::Controller& AzureMachineController::setup(runtime::Manager& manager,
                                                   runtime::Reconciler* as) {
  runtime::ControllerOptions options;
  options.workers = options_.workers;
  runtime::Controller& controller =
      manager.addController(kName, as != nullptr ? *as : *this, options);
  controller.watchFor(manager.informerFor<AzureMachine>());
  // A Machine's bootstrap data or owner reference arriving: its infrastructure machine.
  controller.watchMapped(manager.informerFor<Machine>(), [](const api::Object& object) {
    std::vector<runtime::Request> out;
    const auto* owner = object.as<Machine>();
    const auto& ref = owner->spec.infrastructureRef;
    if (ref.kind == "AzureMachine" && !ref.name.empty()) {
      out.push_back({object.metadata().namespace_, ref.name});
    }
    return out;
  });
  return controller;
}

}  // namespace nodewright::controllers::capz
