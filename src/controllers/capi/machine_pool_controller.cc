#include "controllers/capi/machine_pool_controller.h"

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

using api::capi::MachinePool;
using runtime::Outcome;
using runtime::Result;

std::string phaseOf(const MachinePool& pool) {
  const auto& status = pool.status;
  const int32_t desired = pool.spec.replicas.value_or(1);
  if (pool.metadata.deletionTimestamp) {
    return kPhaseDeleting;
  }
  if (status.failureReason || status.failureMessage) {
    return kPhaseFailed;
  }
  if (!status.bootstrapReady) {
    return kPhasePending;
  }
  if (!status.infrastructureReady) {
    return kPhaseProvisioning;
  }
  if (status.replicas < desired) {
    return kPhaseScalingUp;
  }
  if (status.replicas > desired) {
    return kPhaseScalingDown;
  }
  if (status.readyReplicas == desired &&
      static_cast<int32_t>(pool.spec.providerIDList.size()) == desired) {
    return kPhaseRunning;
  }
  return kPhaseProvisioned;
}

}  // namespace

MachinePoolController::MachinePoolController(kube::Client& client, const core::Clock& clock,
                                             std::vector<const api::KindInfo*> infrastructureKinds)
    : client_(client),
      clock_(clock),
      pools_(client),
      infrastructureKinds_(std::move(infrastructureKinds)) {}

Outcome MachinePoolController::reconcile(const runtime::Request& request,
                                         runtime::Context& context) {
  auto got = pools_.get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Result::done()
               : runtime::apiFailure(got.error(), "reading MachinePool " + request.key());
  }
  MachinePool pool = std::move(*got);
  if (pool.metadata.deletionTimestamp) {
    return finalize(std::move(pool), context);
  }
  if (auto added = runtime::addFinalizer(pools_, pool, kMachinePoolFinalizer); !added) {
    return runtime::apiFailure(added.error(),
                               "adding the finalizer of MachinePool " + request.key());
  }
  if (!context.leading()) {
    return Result::done();
  }
  const MachinePool before = pool;
  auto& bootstrap = pool.spec.template_.spec.bootstrap;
  if (!bootstrap.dataSecretName && bootstrap.configRef) {
    auto name = ensureBootstrapSecret(
        client_, BootstrapOwner{"MachinePool", pool.metadata, pool.spec.clusterName,
                                pool.spec.template_.spec.version});
    if (!name) {
      return runtime::apiFailure(name.error(),
                                 "writing the bootstrap data of MachinePool " + request.key());
    }
    bootstrap.dataSecretName = *name;
  }
  auto infra = reconcileInfrastructure(pool);
  if (!infra) {
    return runtime::apiFailure(infra.error(),
                               "reading the infrastructure of MachinePool " + request.key());
  }
  if (pool.spec.template_.spec.bootstrap.dataSecretName !=
          before.spec.template_.spec.bootstrap.dataSecretName ||
      pool.spec.providerIDList != before.spec.providerIDList) {
    auto written = pools_.update(pool);
    if (!written) {
      return runtime::apiFailure(written.error(), "updating MachinePool " + request.key());
    }
    const auto status = pool.status;
    pool = std::move(*written);
    pool.status = status;
  }
  updateStatus(pool, *infra);
  if (api::toJson(pool.status) != api::toJson(before.status)) {
    if (auto written = pools_.updateStatus(pool); !written) {
      return runtime::apiFailure(written.error(),
                                 "updating the status of MachinePool " + request.key());
    }
  }
  return Result::done();
}

kube::ApiResult<std::optional<InfraContract>> MachinePoolController::reconcileInfrastructure(
    MachinePool& pool) {
  const auto& ref = pool.spec.template_.spec.infrastructureRef;
  if (ref.name.empty()) {
    return std::nullopt;
  }
  auto object = getExternal(client_, ref, pool.metadata.namespace_);
  if (!object) {
    if (object.error().is(kube::Reason::NotFound)) {
      return std::nullopt;
    }
    return tl::unexpected(object.error());
  }
  auto adopted = adoptExternal(client_, *object, controllerRef("MachinePool", pool.metadata),
                               {{api::capi::kClusterNameLabel, pool.spec.clusterName}});
  if (!adopted) {
    return tl::unexpected(adopted.error());
  }
  InfraContract contract = readContract(*adopted);
  pool.spec.providerIDList = contract.providerIDList;
  return contract;
}

void MachinePoolController::updateStatus(MachinePool& pool,
                                         const std::optional<InfraContract>& infra) const {
  const core::Time now(clock_.now());
  auto& status = pool.status;
  status.bootstrapReady = pool.spec.template_.spec.bootstrap.dataSecretName.has_value();
  if (infra) {
    status.infrastructureReady = infra->ready;
    status.replicas = infra->replicas.value_or(0);
    status.readyReplicas = infra->readyReplicas.value_or(infra->ready ? status.replicas : 0);
    status.availableReplicas = status.readyReplicas;
    status.unavailableReplicas =
        std::max(0, pool.spec.replicas.value_or(1) - status.availableReplicas);
    if (infra->failureReason) {
      status.failureReason = infra->failureReason;
    }
    if (infra->failureMessage) {
      status.failureMessage = infra->failureMessage;
    }
  }
  status.observedGeneration = pool.metadata.generation;
  auto& conditions = status.conditions;
  if (status.bootstrapReady) {
    api::capi::markTrue(conditions, kBootstrapReadyCondition, now);
  } else {
    api::capi::markFalse(conditions, kBootstrapReadyCondition, kWaitingForDataSecretReason,
                         api::capi::kSeverityInfo, "", now);
  }
  if (status.infrastructureReady) {
    api::capi::markTrue(conditions, kInfrastructureReadyCondition, now);
  } else {
    api::capi::markFalse(conditions, kInfrastructureReadyCondition, kWaitingForInfrastructureReason,
                         api::capi::kSeverityInfo, "", now);
  }
  if (status.bootstrapReady && status.infrastructureReady) {
    api::capi::markTrue(conditions, api::capi::kReadyCondition, now);
  } else {
    api::capi::markFalse(
        conditions, api::capi::kReadyCondition,
        status.bootstrapReady ? kWaitingForInfrastructureReason : kWaitingForDataSecretReason,
        api::capi::kSeverityInfo, "", now);
  }
  status.phase = phaseOf(pool);
}

Outcome MachinePoolController::finalize(MachinePool pool, runtime::Context& context) {
  const std::string key = pool.metadata.namespace_ + "/" + pool.metadata.name;
  const auto& finalizers = pool.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kMachinePoolFinalizer) == finalizers.end()) {
    return Result::done();
  }
  MachinePool deleting = pool;
  deleting.status.phase = kPhaseDeleting;
  api::capi::markFalse(deleting.status.conditions, api::capi::kReadyCondition, kDeletingReason,
                       api::capi::kSeverityInfo, "", core::Time(clock_.now()));
  if (api::toJson(deleting.status) != api::toJson(pool.status)) {
    auto written = pools_.updateStatus(deleting);
    if (!written) {
      return runtime::apiFailure(written.error(), "updating the status of MachinePool " + key);
    }
    pool = std::move(*written);
  }
  return releaseOwner(client_, pools_, pool, pool.spec.template_.spec.infrastructureRef,
                      kMachinePoolFinalizer, "MachinePool", context);
}

runtime::Controller& MachinePoolController::setup(runtime::Manager& manager,
                                                  const CapiOptions& options) {
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options.machinePoolConcurrency;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  kube::Informer& pools = manager.informerFor<MachinePool>();
  controller.watchFor(pools);
  for (const api::KindInfo* kind : infrastructureKinds_) {
    watchReferenced(controller, pools, manager.informer(*kind), "MachinePool",
                    [](const api::Object& object) -> std::optional<api::ObjectReference> {
                      const auto* pool = object.as<MachinePool>();
                      return pool ? std::optional(pool->spec.template_.spec.infrastructureRef)
                                  : std::nullopt;
                    });
  }
  return controller;
}

}  // namespace nodewright::controllers::capi
