#include "controllers/capz/azuremachinepool/pool_machine_controller.h"

#include <algorithm>

#include "api/capi/cluster.h"
#include "api/capi/conditions.h"
#include "api/capz/conditions.h"
#include "controllers/capz/azuremachine/specs.h"
#include "controllers/capz/futures.h"
#include "controllers/capz/lookup.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"

namespace nodewright::controllers::capz::azuremachinepool {
namespace {

using api::capz::AzureCluster;
using api::capz::AzureMachinePool;
using api::capz::AzureMachinePoolMachine;
using runtime::Outcome;
using runtime::Result;

bool hasFinalizer(const AzureMachinePoolMachine& machine) {
  return runtime::hasFinalizer(machine.metadata, kPoolMachineFinalizer);
}

void setCondition(AzureMachinePoolMachine& machine, bool ok, std::string_view reason,
                  core::Time now) {
  api::capi::CapiCondition c;
  c.type = kVMRunningCondition;
  c.status = ok ? "True" : "False";
  if (!ok) {
    c.reason = std::string(reason);
    c.severity = api::capi::kSeverityInfo;
  }
  api::capi::setCondition(machine.status.conditions, std::move(c), now);
}

}  // namespace

PoolMachineController::PoolMachineController(kube::Client& client, ServiceRunner& runner,
                                             lro::Engine& engine, const core::Clock& clock,
                                             PoolMachineControllerOptions options)
    : client_(client), runner_(runner), engine_(engine), clock_(clock), options_(options) {}

Outcome PoolMachineController::reconcile(const runtime::Request& request, runtime::Context&) {
  auto got = kube::Typed<AzureMachinePoolMachine>(client_).get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Outcome(Result::done())
               : runtime::apiFailure(got.error(), "reading " + request.key());
  }
  AzureMachinePoolMachine& machine = *got;
  auto found = owners(machine);
  if (!found) {
    return runtime::apiFailure(found.error(), "reading the owners of " + request.key());
  }
  const bool deleting = machine.metadata.deletionTimestamp.has_value();
  if (!*found || !(*found)->azureCluster) {
    if (deleting && hasFinalizer(machine)) {
      if (*found && !(*found)->azureClusterGone) {
        // Not known yet: the instance may exist, so the finalizer stays.
        return Result::after(options_.requeue);
      }
      // No pool, or no cluster left, to delete the instance from.
      if (auto removed = setFinalizer(machine, false); !removed) {
        return runtime::apiFailure(removed.error(), "removing the finalizer of " + request.key());
      }
    }
    return Result::done();
  }
  PoolScope scope;
  scope.pool = &(*found)->pool;
  scope.cluster = &*(*found)->azureCluster;
  scope.clusterName = (*found)->clusterName;
  if (deleting) {
    return hasFinalizer(machine) ? remove(machine, scope) : Outcome(Result::done());
  }
  if (!hasFinalizer(machine)) {
    if (auto set = setFinalizer(machine, true); !set) {
      return runtime::apiFailure(set.error(), "adding the finalizer of " + request.key());
    }
  }
  return observe(machine, scope);
}

kube::ApiResult<std::optional<PoolMachineController::Owners>> PoolMachineController::owners(
    const AzureMachinePoolMachine& machine) {
  const std::string& ns = machine.metadata.namespace_;
  Owners out;
  bool owned = false;
  for (const auto& ref : machine.metadata.ownerReferences) {
    if (ref.kind == "AzureMachinePool") {
      out.pool.metadata.name = ref.name;
      out.pool.metadata.namespace_ = ns;
      owned = true;
    }
  }
  if (!owned) {
    return std::optional<Owners>();
  }
  auto pool = findObject<AzureMachinePool>(client_, ns, out.pool.metadata.name);
  if (!pool) {
    return tl::unexpected(pool.error());
  }
  if (*pool) {
    out.pool = std::move(**pool);
  }
  auto label = machine.metadata.labels.find(api::capi::kClusterNameLabel);
  if (label == machine.metadata.labels.end()) {
    return std::optional<Owners>(std::move(out));
  }
  out.clusterName = label->second;
  auto cluster = findObject<api::capi::Cluster>(client_, ns, out.clusterName);
  if (!cluster) {
    return tl::unexpected(cluster.error());
  }
  out.azureClusterGone = !*cluster;
  if (*cluster && (*cluster)->spec.infrastructureRef &&
      (*cluster)->spec.infrastructureRef->kind == "AzureCluster") {
    auto azure = findObject<AzureCluster>(client_, ns, (*cluster)->spec.infrastructureRef->name);
    if (!azure) {
      return tl::unexpected(azure.error());
    }
    out.azureCluster = std::move(*azure);
    out.azureClusterGone = !out.azureCluster.has_value();
  }
  return std::optional<Owners>(std::move(out));
}

Outcome PoolMachineController::observe(AzureMachinePoolMachine& machine, const PoolScope& scope) {
  // A spec that never asks for a write: the engine's read of the instance.
  azuremachine::DeleteOnlyResource instance(lro::ResourceRef{
      instanceResourceId(scope, machine.spec.instanceID), scope.cluster->spec.resourceGroup,
      kScaleSetVMsService, machine.metadata.name});
  lro::Outcome read = withRecords(
      machine.status.longRunningOperationStates,
      [&](lro::OperationRecords& records) { return engine_.createOrUpdate(instance, records); });
  const core::Time now(clock_.now());
  auto& status = machine.status;
  if (read.done() && read.result.is_object()) {
    const auto observed = instanceStatus(read.result);
    status.provisioningState = observed.provisioningState;
    status.instanceName = observed.instanceName;
    status.latestModelApplied = observed.latestModelApplied;
    status.ready = observed.provisioningState == std::optional<std::string>("Succeeded");
    setCondition(machine, status.ready, api::capz::kCreatingReason, now);
  } else {
    status.ready = false;
    setCondition(machine, false, read.done() ? "NotFound" : api::capz::kCreatingReason, now);
  }
  if (auto written = persist(machine); !written) {
    return runtime::apiFailure(written.error(), "writing the status of " + machine.metadata.name);
  }
  return status.ready ? Result::done() : Result::after(options_.requeue);
}

Outcome PoolMachineController::remove(AzureMachinePoolMachine& machine, const PoolScope& scope) {
  auto& status = machine.status;
  status.ready = false;
  status.provisioningState = "Deleting";
  Pass pass = runner_.remove(poolMachineDeleteServices(scope, machine),
                             status.longRunningOperationStates, status.conditions);
  if (auto written = persist(machine); !written) {
    return runtime::apiFailure(written.error(), "writing the status of " + machine.metadata.name);
  }
  if (!pass.done) {
    return Result::waiting(pass.requeueAfter.value_or(options_.requeue));
  }
  if (auto removed = setFinalizer(machine, false); !removed) {
    return runtime::apiFailure(removed.error(),
                               "removing the finalizer of " + machine.metadata.name);
  }
  return Result::done();
}

kube::ApiStatus PoolMachineController::persist(const AzureMachinePoolMachine& machine) {
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<AzureMachinePoolMachine>(client_.registry()),
      machine.metadata.namespace_, machine.metadata.name, [&](api::Object& object) {
        object.as<AzureMachinePoolMachine>()->status = machine.status;
        return true;
      });
  if (!written) {
    return tl::unexpected(written.error());
  }
  return {};
}

kube::ApiStatus PoolMachineController::setFinalizer(const AzureMachinePoolMachine& machine,
                                                    bool present) {
  return runtime::setFinalizerWithRetry(client_, machine, kPoolMachineFinalizer, present);
}

runtime::Controller& PoolMachineController::setup(runtime::Manager& manager,
                                                  runtime::Reconciler* as) {
  runtime::ControllerOptions options;
  options.workers = options_.workers;
  runtime::Controller& controller =
      manager.addController(kName, as != nullptr ? *as : *this, options);
  controller.watchFor(manager.informerFor<AzureMachinePoolMachine>());
  return controller;
}

}  // namespace nodewright::controllers::capz::azuremachinepool
