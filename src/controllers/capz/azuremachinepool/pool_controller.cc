#include "controllers/capz/azuremachinepool/pool_controller.h"

#include <algorithm>
#include <set>

#include "api/capi/cluster.h"
#include "api/capi/conditions.h"
#include "api/capz/conditions.h"
#include "api/core/secret.h"
#include "controllers/capz/lookup.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"

namespace nodewright::controllers::capz::azuremachinepool {
namespace {

using api::capi::MachinePool;
using api::capz::AzureCluster;
using api::capz::AzureMachinePool;
using api::capz::AzureMachinePoolMachine;
using runtime::Outcome;
using runtime::Result;

constexpr const char* kWaitingForClusterInfrastructure = "WaitingForClusterInfrastructure";
constexpr const char* kWaitingForBootstrapData = "WaitingForBootstrapData";

bool hasFinalizer(const AzureMachinePool& pool) {
  return runtime::hasFinalizer(pool.metadata, kPoolFinalizer);
}

PoolScope scopeFor(const AzureMachinePool& pool, const AzureCluster& cluster,
                   const std::string& clusterName, const std::optional<MachinePool>& owner) {
  PoolScope scope;
  scope.pool = &pool;
  scope.cluster = &cluster;
  scope.clusterName = clusterName;
  if (owner) {
    scope.replicas = owner->spec.replicas.value_or(1);
    scope.failureDomains = owner->spec.failureDomains;
  }
  return scope;
}

}  // namespace

PoolController::PoolController(kube::Client& client, ServiceRunner& runner,
                               ScaleSetInstances& instances, const core::Clock& clock,
                               PoolControllerOptions options)
    : client_(client), runner_(runner), instances_(instances), clock_(clock), options_(options) {}

Outcome PoolController::reconcile(const runtime::Request& request, runtime::Context&) {
  auto got = kube::Typed<AzureMachinePool>(client_).get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Outcome(Result::done())
               : runtime::apiFailure(got.error(), "reading " + request.key());
  }
  auto found = owners(*got);
  if (!found) {
    return runtime::apiFailure(found.error(), "reading the owners of " + request.key());
  }
  if (got->metadata.deletionTimestamp) {
    return reconcileDelete(*got, *found);
  }
  if (!found->machinePool) {
    return Result::done();  // the MachinePool controller has not set the owner reference yet
  }
  return reconcileNormal(*got, *found);
}

kube::ApiResult<PoolController::Owners> PoolController::owners(const AzureMachinePool& pool) {
  Owners out;
  const std::string& ns = pool.metadata.namespace_;
  for (const auto& ref : pool.metadata.ownerReferences) {
    if (ref.kind == "MachinePool") {
      auto owner = findObject<MachinePool>(client_, ns, ref.name);
      if (!owner) {
        return tl::unexpected(owner.error());
      }
      out.machinePool = std::move(*owner);
    }
  }
  auto label = pool.metadata.labels.find(api::capi::kClusterNameLabel);
  out.clusterName = label != pool.metadata.labels.end() ? label->second
                    : out.machinePool                   ? out.machinePool->spec.clusterName
                                                        : std::string();
  if (out.clusterName.empty()) {
    return out;
  }
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
  return out;
}

void PoolController::waiting(AzureMachinePool& pool, const char* reason) {
  api::capi::CapiCondition c;
  c.type = kScaleSetRunningCondition;
  c.status = "False";
  c.reason = reason;
  c.severity = api::capi::kSeverityInfo;
  api::capi::setCondition(pool.status.conditions, std::move(c), core::Time(clock_.now()));
  pool.status.ready = false;
}

Outcome PoolController::reconcileNormal(AzureMachinePool& pool, const Owners& owners) {
  const std::string key = pool.metadata.namespace_ + "/" + pool.metadata.name;
  if (!hasFinalizer(pool)) {
    if (auto set = setFinalizer(pool, true); !set) {
      return runtime::apiFailure(set.error(), "adding the finalizer of " + key);
    }
  }
  if (!owners.azureCluster || !owners.azureCluster->status.ready) {
    waiting(pool, kWaitingForClusterInfrastructure);
    if (auto written = persist(pool, false); !written) {
      return runtime::apiFailure(written.error(), "writing the status of " + key);
    }
    return Result::after(options_.requeue);
  }
  const auto& secretName = owners.machinePool->spec.template_.spec.bootstrap.dataSecretName;
  std::optional<api::corev1::Secret> secret;
  if (secretName && !secretName->empty()) {
    auto got = findObject<api::corev1::Secret>(client_, pool.metadata.namespace_, *secretName);
    if (!got) {
      return runtime::apiFailure(got.error(), "reading the bootstrap data of " + key);
    }
    secret = std::move(*got);
  }
  if (!secret) {
    waiting(pool, kWaitingForBootstrapData);
    if (auto written = persist(pool, false); !written) {
      return runtime::apiFailure(written.error(), "writing the status of " + key);
    }
    return Result::after(options_.requeue);
  }
  auto data = api::corev1::secretValue(*secret, "value");
  if (!data) {
    return core::fail(data.error().wrap("reading the bootstrap data of " + key));
  }
  PoolScope scope = scopeFor(pool, *owners.azureCluster, owners.clusterName, owners.machinePool);
  scope.bootstrapData = std::move(*data);
  auto services = scaleSetServices(scope);
  if (!services) {
    return core::fail(services.error().wrap("building the scale set of " + key));
  }
  auto& status = pool.status;
  Pass pass = runner_.reconcile(*services, status.longRunningOperationStates, status.conditions);
  const std::vector<std::string> idsBefore = pool.spec.providerIDList;
  const std::string providerIDBefore = pool.spec.providerID;
  if (pass.done) {
    if (auto synced = syncInstances(pool, scope); !synced) {
      return core::fail(synced.error().wrap("listing the instances of " + key));
    }
  } else {
    status.ready = false;
  }
  const bool specChanged =
      pool.spec.providerIDList != idsBefore || pool.spec.providerID != providerIDBefore;
  if (auto written = persist(pool, specChanged); !written) {
    return runtime::apiFailure(written.error(), "writing the status of " + key);
  }
  if (pass.done) {
    if (auto machines = syncPoolMachines(pool, scope); !machines) {
      return runtime::apiFailure(machines.error(), "keeping the machines of " + key);
    }
  }
  if (status.ready) {
    return Result::done();
  }
  return Result::waiting(pass.requeueAfter.value_or(options_.requeue));
}

core::Result<void> PoolController::syncInstances(AzureMachinePool& pool, const PoolScope& scope) {
  auto listed = instances_.list(scaleSetId(scope));
  if (!listed) {
    return tl::unexpected(listed.error());
  }
  auto& status = pool.status;
  status.instances.clear();
  pool.spec.providerIDList.clear();
  bool allSucceeded = true;
  for (const api::Json& body : *listed) {
    api::capz::AzureMachinePoolInstanceStatus instance = instanceStatus(body);
    allSucceeded =
        allSucceeded && instance.provisioningState == std::optional<std::string>("Succeeded");
    pool.spec.providerIDList.push_back(instance.providerID);
    status.instances.push_back(std::move(instance));
  }
  pool.spec.providerID = "azure://" + scaleSetId(scope);
  status.replicas = static_cast<int32_t>(status.instances.size());
  status.provisioningState = "Succeeded";
  status.ready = allSucceeded && status.replicas == scope.replicas;
  return {};
}

kube::ApiStatus PoolController::syncPoolMachines(const AzureMachinePool& pool,
                                                 const PoolScope& scope) {
  kube::Typed<AzureMachinePoolMachine> typed(client_);
  kube::ListOptions options;
  options.labelSelector = std::string(kMachinePoolNameLabel) + "=" + pool.metadata.name;
  auto existing = typed.list(pool.metadata.namespace_, options);
  if (!existing) {
    return tl::unexpected(existing.error());
  }
  std::set<std::string> have;
  std::set<std::string> running;
  for (const auto& instance : pool.status.instances) {
    running.insert(instance.instanceID);
  }
  for (const auto& machine : *existing) {
    have.insert(machine.spec.instanceID);
    // An instance gone from the scale set (scaled in, deleted in Azure): its machine goes too.
    if (!running.contains(machine.spec.instanceID) && !machine.metadata.deletionTimestamp) {
      auto removed = typed.remove(machine.metadata.namespace_, machine.metadata.name);
      if (!removed && !removed.error().is(kube::Reason::NotFound)) {
        return tl::unexpected(removed.error());
      }
    }
  }
  for (const auto& instance : pool.status.instances) {
    if (have.contains(instance.instanceID)) {
      continue;
    }
    AzureMachinePoolMachine machine;
    machine.apiVersion = std::string(api::capz::kGroup) + "/" + api::capz::kVersion;
    machine.kind = "AzureMachinePoolMachine";
    machine.metadata.name = pool.metadata.name + "-" + instance.instanceID;
    machine.metadata.namespace_ = pool.metadata.namespace_;
    machine.metadata.labels = {{api::capi::kClusterNameLabel, scope.clusterName},
                               {kMachinePoolNameLabel, pool.metadata.name}};
    api::OwnerReference owner;
    owner.apiVersion = pool.apiVersion;
    owner.kind = "AzureMachinePool";
    owner.name = pool.metadata.name;
    owner.uid = pool.metadata.uid;
    owner.controller = true;
    owner.blockOwnerDeletion = true;
    machine.metadata.ownerReferences = {owner};
    machine.spec.providerID = instance.providerID;
    machine.spec.instanceID = instance.instanceID;
    auto created = typed.create(machine);
    if (!created && !created.error().is(kube::Reason::AlreadyExists)) {
      return tl::unexpected(created.error());
    }
  }
  return {};
}

Outcome PoolController::reconcileDelete(AzureMachinePool& pool, const Owners& owners) {
  const std::string key = pool.metadata.namespace_ + "/" + pool.metadata.name;
  if (!hasFinalizer(pool)) {
    return Result::done();
  }
  if (owners.azureCluster) {
    PoolScope scope = scopeFor(pool, *owners.azureCluster, owners.clusterName, owners.machinePool);
    auto& status = pool.status;
    status.ready = false;
    status.provisioningState = "Deleting";
    Pass pass = runner_.remove(scaleSetDeleteServices(scope), status.longRunningOperationStates,
                               status.conditions);
    if (auto written = persist(pool, false); !written) {
      return runtime::apiFailure(written.error(), "writing the status of " + key);
    }
    if (!pass.done) {
      return Result::waiting(pass.requeueAfter.value_or(options_.requeue));
    }
  } else if (!owners.azureClusterGone) {
    // Not known yet: the scale set may exist, so the finalizer stays.
    return Result::after(options_.requeue);
  }
  if (auto removed = setFinalizer(pool, false); !removed) {
    return runtime::apiFailure(removed.error(), "removing the finalizer of " + key);
  }
  return Result::done();
}

kube::ApiStatus PoolController::persist(const AzureMachinePool& pool, bool specChanged) {
  const auto& kind = kube::kindOf<AzureMachinePool>(client_.registry());
  const std::string& ns = pool.metadata.namespace_;
  const std::string& name = pool.metadata.name;
  if (specChanged) {
    auto written = kube::updateWithRetry(client_, kind, ns, name, [&](api::Object& object) {
      auto* stored = object.as<AzureMachinePool>();
      stored->spec.providerID = pool.spec.providerID;
      stored->spec.providerIDList = pool.spec.providerIDList;
      return true;
    });
    if (!written) {
      return tl::unexpected(written.error());
    }
  }
  auto written = kube::updateStatusWithRetry(client_, kind, ns, name, [&](api::Object& object) {
    object.as<AzureMachinePool>()->status = pool.status;
    return true;
  });
  if (!written) {
    return tl::unexpected(written.error());
  }
  return {};
}

kube::ApiStatus PoolController::setFinalizer(const AzureMachinePool& pool, bool present) {
  return runtime::setFinalizerWithRetry(client_, pool, kPoolFinalizer, present);
}

runtime::Controller& PoolController::setup(runtime::Manager& manager, runtime::Reconciler* as) {
  runtime::ControllerOptions options;
  options.workers = options_.workers;
  runtime::Controller& controller =
      manager.addController(kName, as != nullptr ? *as : *this, options);
  controller.watchFor(manager.informerFor<AzureMachinePool>());
  // Replicas and bootstrap data come from the MachinePool.
  controller.watchMapped(manager.informerFor<MachinePool>(), [](const api::Object& object) {
    std::vector<runtime::Request> out;
    const auto& ref = object.as<MachinePool>()->spec.template_.spec.infrastructureRef;
    if (ref.kind == "AzureMachinePool" && !ref.name.empty()) {
      out.push_back({object.metadata().namespace_, ref.name});
    }
    return out;
  });
  // An instance deleted through its AzureMachinePoolMachine leaves the scale set one short and
  // the providerIDList stale: the pool looks again when one of its machines changes or goes
  // (CAPZ's AzureMachinePoolMachineMapper).
  controller.watchOwned(manager.informerFor<AzureMachinePoolMachine>(), "AzureMachinePool");
  return controller;
}

}  // namespace nodewright::controllers::capz::azuremachinepool
