#include "controllers/capi/cluster_controller.h"

#include <algorithm>
#include <chrono>

#include "api/capi/conditions.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capi/machine_pool.h"
#include "api/capi/machine_set.h"
#include "api/codec.h"
#include "controllers/capi/external.h"
#include "controllers/capi/watches.h"
#include "controllers/capi/well_known.h"
#include "core/log.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"

namespace nodewright::controllers::capi {
namespace {

using api::capi::Cluster;
using runtime::Outcome;
using runtime::Result;

// How often a deleting Cluster looks for descendants that are still there.
constexpr std::chrono::seconds kDeleteRequeueAfter{10};

template <class T>
bool belongsTo(const T& object, const Cluster& cluster) {
  const auto& labels = object.metadata.labels;
  auto it = labels.find(api::capi::kClusterNameLabel);
  return object.spec.clusterName == cluster.metadata.name ||
         (it != labels.end() && it->second == cluster.metadata.name);
}

std::string phaseOf(const Cluster& cluster) {
  if (cluster.metadata.deletionTimestamp) {
    return kPhaseDeleting;
  }
  if (cluster.status.failureReason || cluster.status.failureMessage) {
    return kPhaseFailed;
  }
  if (cluster.status.infrastructureReady && !cluster.spec.controlPlaneEndpoint.host.empty()) {
    return kPhaseProvisioned;
  }
  if (cluster.spec.infrastructureRef) {
    return kPhaseProvisioning;
  }
  return kPhasePending;
}

}  // namespace

ClusterController::ClusterController(kube::Client& client, const core::Clock& clock,
                                     std::vector<const api::KindInfo*> infrastructureKinds)
    : client_(client),
      clock_(clock),
      clusters_(client),
      infrastructureKinds_(std::move(infrastructureKinds)) {}

Outcome ClusterController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto got = clusters_.get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Result::done()
               : runtime::apiFailure(got.error(), "reading Cluster " + request.key());
  }
  Cluster cluster = std::move(*got);
  if (cluster.metadata.deletionTimestamp) {
    return finalize(std::move(cluster), context);
  }
  if (auto added = runtime::addFinalizer(clusters_, cluster, kClusterFinalizer); !added) {
    return runtime::apiFailure(added.error(), "adding the finalizer of Cluster " + request.key());
  }
  if (cluster.spec.paused || !context.leading()) {
    return Result::done();
  }
  const Cluster before = cluster;
  const core::Time now(clock_.now());
  std::optional<InfraContract> infra;
  if (cluster.spec.infrastructureRef) {
    auto object =
        getExternal(client_, *cluster.spec.infrastructureRef, cluster.metadata.namespace_);
    if (!object && !object.error().is(kube::Reason::NotFound)) {
      return runtime::apiFailure(object.error(),
                                 "reading the infrastructure of Cluster " + request.key());
    }
    if (object) {
      auto adopted = adoptExternal(client_, *object, controllerRef("Cluster", cluster.metadata),
                                   {{api::capi::kClusterNameLabel, cluster.metadata.name}});
      if (!adopted) {
        return runtime::apiFailure(adopted.error(),
                                   "adopting the infrastructure of Cluster " + request.key());
      }
      infra = readContract(*adopted);
    }
  }
  if (infra && infra->controlPlaneEndpoint && cluster.spec.controlPlaneEndpoint.host.empty()) {
    cluster.spec.controlPlaneEndpoint = *infra->controlPlaneEndpoint;
    const auto status = cluster.status;
    auto written = clusters_.update(cluster);
    if (!written) {
      return runtime::apiFailure(written.error(), "updating Cluster " + request.key());
    }
    cluster = std::move(*written);
    cluster.status = status;
  }

  auto& status = cluster.status;
  if (infra) {
    status.infrastructureReady = status.infrastructureReady || infra->ready;
    if (infra->failureReason) {
      status.failureReason = infra->failureReason;
    }
    if (infra->failureMessage) {
      status.failureMessage = infra->failureMessage;
    }
  }
  const auto& ref = cluster.spec.infrastructureRef;
  if (status.infrastructureReady) {
    api::capi::markTrue(status.conditions, kInfrastructureReadyCondition, now);
    api::capi::markTrue(status.conditions, api::capi::kReadyCondition, now);
  } else {
    const std::string message =
        !ref ? "no infrastructureRef"
             : ref->kind + " " + ref->name + (infra ? " is not ready" : " does not exist yet");
    api::capi::markFalse(status.conditions, kInfrastructureReadyCondition,
                         kWaitingForInfrastructureReason, api::capi::kSeverityInfo, message, now);
    api::capi::markFalse(status.conditions, api::capi::kReadyCondition,
                         kWaitingForInfrastructureReason, api::capi::kSeverityInfo, message, now);
  }
  if (auto written = writeStatus(cluster, before); !written) {
    return runtime::apiFailure(written.error(), "updating the status of Cluster " + request.key());
  }
  return Result::done();
}

kube::ApiStatus ClusterController::writeStatus(Cluster& cluster, const Cluster& before) {
  cluster.status.phase = phaseOf(cluster);
  cluster.status.observedGeneration = cluster.metadata.generation;
  if (api::toJson(cluster.status) == api::toJson(before.status)) {
    return {};
  }
  auto written = clusters_.updateStatus(cluster);
  if (!written) {
    return tl::unexpected(written.error());
  }
  cluster = std::move(*written);
  return {};
}

Outcome ClusterController::finalize(Cluster cluster, runtime::Context& context) {
  const std::string key = cluster.metadata.namespace_ + "/" + cluster.metadata.name;
  const auto& finalizers = cluster.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kClusterFinalizer) == finalizers.end()) {
    return Result::done();
  }
  const Cluster before = cluster;
  const core::Time now(clock_.now());
  api::capi::markFalse(cluster.status.conditions, api::capi::kReadyCondition, kDeletingReason,
                       api::capi::kSeverityInfo, "", now);
  if (auto written = writeStatus(cluster, before); !written) {
    return runtime::apiFailure(written.error(), "updating the status of Cluster " + key);
  }
  if (!context.leading()) {
    return Result::done();
  }
  auto remaining = deleteDescendants(cluster);
  if (!remaining) {
    return runtime::apiFailure(remaining.error(), "deleting the machines of Cluster " + key);
  }
  if (*remaining > 0) {
    // Objects matched only by spec.clusterName (no cluster-name label) send no event that
    // wakes this Cluster when they go: look again after a while, as CAPI's reconcileDelete.
    core::logInfo(context.log(), "waiting for cluster descendants",
                  {{"cluster", key}, {"remaining", *remaining}});
    return Result::after(kDeleteRequeueAfter);
  }
  if (cluster.spec.infrastructureRef) {
    auto gone =
        deleteExternal(client_, *cluster.spec.infrastructureRef, cluster.metadata.namespace_);
    if (!gone) {
      return runtime::apiFailure(gone.error(), "deleting the infrastructure of Cluster " + key);
    }
    if (!*gone) {
      return Result::done();  // its removal wakes this Cluster (watches.h)
    }
  }
  if (auto removed = runtime::removeFinalizer(clusters_, cluster, kClusterFinalizer); !removed) {
    return runtime::apiFailure(removed.error(), "removing the finalizer of Cluster " + key);
  }
  return Result::done();
}

template <class T>
kube::ApiResult<size_t> ClusterController::deleteOwnedBy(const Cluster& cluster) {
  kube::Typed<T> typed(client_);
  auto listed = typed.list(cluster.metadata.namespace_);
  if (!listed) {
    return tl::unexpected(listed.error());
  }
  size_t remaining = 0;
  for (const T& object : *listed) {
    if (!belongsTo(object, cluster)) {
      continue;
    }
    ++remaining;
    if (object.metadata.deletionTimestamp) {
      continue;
    }
    auto removed = typed.remove(object.metadata.namespace_, object.metadata.name);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return tl::unexpected(removed.error());
    }
  }
  return remaining;
}

// Top-down, as CAPI's reconcileDelete: deployments and pools first (their sets and machines go
// with them), then whatever sets and machines stand on their own.
kube::ApiResult<size_t> ClusterController::deleteDescendants(const Cluster& cluster) {
  size_t remaining = 0;
  for (auto step : {&ClusterController::deleteOwnedBy<api::capi::MachineDeployment>,
                    &ClusterController::deleteOwnedBy<api::capi::MachinePool>,
                    &ClusterController::deleteOwnedBy<api::capi::MachineSet>,
                    &ClusterController::deleteOwnedBy<api::capi::Machine>}) {
    auto left = (this->*step)(cluster);
    if (!left) {
      return tl::unexpected(left.error());
    }
    remaining += *left;
  }
  return remaining;
}

runtime::Controller& ClusterController::setup(runtime::Manager& manager,
                                              const CapiOptions& options) {
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options.clusterConcurrency;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  kube::Informer& clusters = manager.informerFor<Cluster>();
  controller.watchFor(clusters);
  for (const api::KindInfo* kind : infrastructureKinds_) {
    watchReferenced(controller, clusters, manager.informer(*kind), "Cluster",
                    [](const api::Object& object) -> std::optional<api::ObjectReference> {
                      const auto* cluster = object.as<Cluster>();
                      return cluster ? cluster->spec.infrastructureRef : std::nullopt;
                    });
  }
  const runtime::MapFunc byClusterLabel = [](const api::Object& object) {
    const auto& labels = object.metadata().labels;
    auto it = labels.find(api::capi::kClusterNameLabel);
    if (it == labels.end()) {
      return std::vector<runtime::Request>{};
    }
    return std::vector<runtime::Request>{{object.metadata().namespace_, it->second}};
  };
  controller.watchMapped(manager.informerFor<api::capi::MachineDeployment>(), byClusterLabel);
  controller.watchMapped(manager.informerFor<api::capi::MachinePool>(), byClusterLabel);
  controller.watchMapped(manager.informerFor<api::capi::MachineSet>(), byClusterLabel);
  controller.watchMapped(manager.informerFor<api::capi::Machine>(), byClusterLabel);
  return controller;
}

}  // namespace nodewright::controllers::capi
