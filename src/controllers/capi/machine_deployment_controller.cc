#include "controllers/capi/machine_deployment_controller.h"

#include <algorithm>

#include "api/capi/conditions.h"
#include "api/codec.h"
#include "controllers/capi/external.h"
#include "controllers/capi/machine_set_controller.h"
#include "controllers/capi/rollout.h"
#include "controllers/capi/well_known.h"
#include "core/hash.h"
#include "runtime/api_outcome.h"

namespace nodewright::controllers::capi {
namespace {

using api::capi::Machine;
using api::capi::MachineDeployment;
using api::capi::MachineSet;
using runtime::Outcome;
using runtime::Result;

constexpr std::string_view kSafeAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string deploymentLabel(const MachineDeployment& deployment) {
  return std::string(api::capi::kMachineDeploymentNameLabel) + "=" +
         api::capi::formatLabelValue(deployment.metadata.name);
}

std::string hashOf(const MachineSet& set) {
  auto it = set.metadata.labels.find(kMachineTemplateHashLabel);
  return it == set.metadata.labels.end() ? "" : it->second;
}

bool olderThan(const MachineSet* a, const MachineSet* b) {
  if (a->metadata.creationTimestamp.point() != b->metadata.creationTimestamp.point()) {
    return a->metadata.creationTimestamp.point() < b->metadata.creationTimestamp.point();
  }
  return a->metadata.name < b->metadata.name;
}

}  // namespace

std::string templateHash(const api::capi::MachineTemplateSpec& spec) {
  core::Hasher hasher;
  hasher.addBytes(api::toJson(spec).dump());
  const uint64_t wide = hasher.value();
  const auto folded = static_cast<uint32_t>(wide ^ (wide >> 32));
  std::string hash;
  for (char digit : std::to_string(folded)) {
    hash += kSafeAlphabet[static_cast<unsigned char>(digit) % kSafeAlphabet.size()];
  }
  return hash;
}

MachineSet machineSetFor(const MachineDeployment& deployment, const std::string& hash,
                         int32_t replicas) {
  const std::string deploymentName = api::capi::formatLabelValue(deployment.metadata.name);
  MachineSet set;
  set.apiVersion = kApiVersion;
  set.kind = "MachineSet";
  set.metadata.name = deployment.metadata.name + "-" + hash;
  set.metadata.namespace_ = deployment.metadata.namespace_;
  set.metadata.labels = deployment.spec.template_.metadata.labels;
  set.metadata.labels[api::capi::kMachineDeploymentNameLabel] = deploymentName;
  set.metadata.labels[kMachineTemplateHashLabel] = hash;
  set.metadata.labels[api::capi::kClusterNameLabel] = deployment.spec.clusterName;
  set.metadata.ownerReferences.push_back(controllerRef("MachineDeployment", deployment.metadata));
  set.spec.clusterName = deployment.spec.clusterName;
  set.spec.replicas = replicas;
  set.spec.minReadySeconds = deployment.spec.minReadySeconds.value_or(0);
  const auto& strategy = deployment.spec.strategy;
  if (strategy && strategy->rollingUpdate && strategy->rollingUpdate->deletePolicy) {
    set.spec.deletePolicy = strategy->rollingUpdate->deletePolicy;
  }
  set.spec.selector = deployment.spec.selector;
  set.spec.selector.matchLabels[kMachineTemplateHashLabel] = hash;
  set.spec.template_ = deployment.spec.template_;
  set.spec.template_.metadata.labels[kMachineTemplateHashLabel] = hash;
  set.spec.template_.metadata.labels[api::capi::kMachineDeploymentNameLabel] = deploymentName;
  set.spec.template_.spec.clusterName = deployment.spec.clusterName;
  return set;
}

MachineDeploymentController::MachineDeploymentController(kube::Client& client,
                                                         const core::Clock& clock)
    : clock_(clock), deployments_(client), sets_(client), machines_(client) {}

Outcome MachineDeploymentController::reconcile(const runtime::Request& request,
                                               runtime::Context& context) {
  auto got = deployments_.get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Result::done()
               : runtime::apiFailure(got.error(), "reading MachineDeployment " + request.key());
  }
  MachineDeployment deployment = std::move(*got);
  if (deployment.metadata.deletionTimestamp) {
    return Result::done();  // its MachineSets go with it (owner references)
  }
  auto sets = ownedSets(deployment);
  if (!sets) {
    return runtime::apiFailure(sets.error(),
                               "listing the MachineSets of MachineDeployment " + request.key());
  }
  auto machines = machinesOf(deployment);
  if (!machines) {
    return runtime::apiFailure(machines.error(),
                               "listing the Machines of MachineDeployment " + request.key());
  }
  const std::string hash = templateHash(deployment.spec.template_);

  if (!deployment.spec.paused) {
    MachineSet* newSet = nullptr;
    std::vector<MachineSet*> oldSets;
    for (MachineSet& set : *sets) {
      if (hashOf(set) == hash && !set.metadata.deletionTimestamp) {
        newSet = &set;
      } else {
        oldSets.push_back(&set);
      }
    }
    std::sort(oldSets.begin(), oldSets.end(), olderThan);

    const int32_t desired = deployment.spec.replicas.value_or(1);
    const int32_t minReady = deployment.spec.minReadySeconds.value_or(0);
    const core::TimePoint now = clock_.now();
    auto stateOf = [&](const MachineSet& set) {
      SetState state;
      state.name = set.metadata.name;
      state.replicas = set.spec.replicas.value_or(1);
      auto it = machines->find(set.metadata.uid);
      if (it != machines->end()) {
        for (const Machine& machine : it->second) {
          if (machine.metadata.deletionTimestamp) {
            continue;
          }
          ++state.machines;
          state.available += machineAvailable(machine, minReady, now) ? 1 : 0;
        }
      }
      // A machine its set is about to remove is not one to count on.
      state.available = std::min(state.available, state.replicas);
      return state;
    };
    RolloutInput input;
    input.desired = desired;
    const auto& strategy = deployment.spec.strategy;
    input.onDelete = strategy && strategy->type == kOnDeleteStrategy;
    if (strategy && strategy->rollingUpdate) {
      const Bounds bounds = resolveBounds(strategy->rollingUpdate->maxSurge,
                                          strategy->rollingUpdate->maxUnavailable, desired);
      input.maxSurge = bounds.maxSurge;
      input.maxUnavailable = bounds.maxUnavailable;
    }
    if (newSet != nullptr) {
      input.newSet = stateOf(*newSet);
    }
    for (const MachineSet* set : oldSets) {
      input.oldSets.push_back(stateOf(*set));
    }
    const std::vector<int32_t> plan = planRollout(input);
    if (!context.leading()) {
      return Result::done();
    }
    if (auto applied = applyPlan(deployment, hash, newSet, oldSets, plan); !applied) {
      return runtime::apiFailure(applied.error(),
                                 "scaling the MachineSets of MachineDeployment " + request.key());
    }
    if (auto cleaned = deleteSurplusOldSets(deployment, oldSets, *machines); !cleaned) {
      return runtime::apiFailure(cleaned.error(),
                                 "deleting old MachineSets of MachineDeployment " + request.key());
    }
    if (newSet == nullptr) {
      // The new set's own events bring this deployment back to count it.
      return Result::done();
    }
  }

  const MachineDeployment before = deployment;
  computeStatus(deployment, *sets, hash, *machines);
  if (api::toJson(deployment.status) != api::toJson(before.status)) {
    if (auto written = deployments_.updateStatus(deployment); !written) {
      return runtime::apiFailure(written.error(),
                                 "updating the status of MachineDeployment " + request.key());
    }
  }
  return Result::done();
}

kube::ApiResult<std::vector<MachineSet>> MachineDeploymentController::ownedSets(
    const MachineDeployment& deployment) {
  kube::ListOptions options;
  options.labelSelector = deploymentLabel(deployment);
  auto listed = sets_.list(deployment.metadata.namespace_, options);
  if (!listed) {
    return tl::unexpected(listed.error());
  }
  std::vector<MachineSet> owned;
  for (MachineSet& set : *listed) {
    if (controllerUid(set.metadata) == deployment.metadata.uid) {
      owned.push_back(std::move(set));
    }
  }
  return owned;
}

auto MachineDeploymentController::machinesOf(const MachineDeployment& deployment)
    -> kube::ApiResult<MachinesBySet> {
  kube::ListOptions options;
  options.labelSelector = deploymentLabel(deployment);
  auto listed = machines_.list(deployment.metadata.namespace_, options);
  if (!listed) {
    return tl::unexpected(listed.error());
  }
  MachinesBySet bySet;
  for (Machine& machine : *listed) {
    bySet[controllerUid(machine.metadata)].push_back(std::move(machine));
  }
  return bySet;
}

kube::ApiStatus MachineDeploymentController::applyPlan(const MachineDeployment& deployment,
                                                       const std::string& hash,
                                                       const MachineSet* newSet,
                                                       const std::vector<MachineSet*>& oldSets,
                                                       const std::vector<int32_t>& plan) {
  // Old sets shrink before the new one grows, so a crash in between never leaves more than
  // the surge allows.
  for (size_t i = 0; i < oldSets.size(); ++i) {
    MachineSet& set = *oldSets[i];
    if (set.spec.replicas.value_or(1) == plan[i + 1] || set.metadata.deletionTimestamp) {
      continue;
    }
    set.spec.replicas = plan[i + 1];
    auto written = sets_.update(set);
    if (!written) {
      return tl::unexpected(written.error());
    }
    set = std::move(*written);
  }
  if (newSet == nullptr) {
    auto created = sets_.create(machineSetFor(deployment, hash, plan[0]));
    if (!created) {
      return tl::unexpected(created.error());
    }
    return {};
  }
  if (newSet->spec.replicas.value_or(1) != plan[0]) {
    MachineSet changed = *newSet;
    changed.spec.replicas = plan[0];
    if (auto written = sets_.update(changed); !written) {
      return tl::unexpected(written.error());
    }
  }
  return {};
}

kube::ApiStatus MachineDeploymentController::deleteSurplusOldSets(
    const MachineDeployment& deployment, const std::vector<MachineSet*>& oldSets,
    const MachinesBySet& machines) {
  std::vector<const MachineSet*> empty;
  for (const MachineSet* set : oldSets) {
    if (set->spec.replicas.value_or(1) == 0 && !machines.contains(set->metadata.uid) &&
        !set->metadata.deletionTimestamp) {
      empty.push_back(set);
    }
  }
  const auto keep =
      static_cast<size_t>(std::max<int32_t>(0, deployment.spec.revisionHistoryLimit.value_or(1)));
  for (size_t i = 0; i + keep < empty.size(); ++i) {  // oldest first
    auto removed = sets_.remove(empty[i]->metadata.namespace_, empty[i]->metadata.name);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return tl::unexpected(removed.error());
    }
  }
  return {};
}

void MachineDeploymentController::computeStatus(MachineDeployment& deployment,
                                                const std::vector<MachineSet>& sets,
                                                const std::string& hash,
                                                const MachinesBySet& machines) const {
  const core::TimePoint now = clock_.now();
  const int32_t desired = deployment.spec.replicas.value_or(1);
  const int32_t minReady = deployment.spec.minReadySeconds.value_or(0);
  auto& status = deployment.status;
  status.replicas = status.updatedReplicas = status.readyReplicas = status.availableReplicas = 0;
  bool failed = false;
  for (const MachineSet& set : sets) {
    failed = failed || set.status.failureReason || set.status.failureMessage;
    auto it = machines.find(set.metadata.uid);
    if (it == machines.end()) {
      continue;
    }
    for (const Machine& machine : it->second) {
      if (machine.metadata.deletionTimestamp) {
        continue;
      }
      ++status.replicas;
      status.updatedReplicas += hashOf(set) == hash ? 1 : 0;
      status.readyReplicas += machineReady(machine) ? 1 : 0;
      status.availableReplicas += machineAvailable(machine, minReady, now) ? 1 : 0;
    }
  }
  status.unavailableReplicas = std::max(0, desired - status.availableReplicas);
  status.selector = api::formatSelector(deployment.spec.selector);
  status.observedGeneration = deployment.metadata.generation;
  // CAPI's order: the later rule wins.
  if (desired == status.readyReplicas) {
    status.phase = kPhaseRunning;
  }
  if (desired > status.readyReplicas) {
    status.phase = kPhaseScalingUp;
  }
  if (status.replicas > desired) {
    status.phase = kPhaseScalingDown;
  }
  if (failed) {
    status.phase = kPhaseFailed;
  }

  const core::Time at(now);
  int32_t maxUnavailable = 0;
  const auto& strategy = deployment.spec.strategy;
  if (strategy && strategy->rollingUpdate) {
    maxUnavailable = resolveBounds(strategy->rollingUpdate->maxSurge,
                                   strategy->rollingUpdate->maxUnavailable, desired)
                         .maxUnavailable;
  }
  auto& conditions = status.conditions;
  if (status.availableReplicas >= desired - maxUnavailable) {
    api::capi::markTrue(conditions, kAvailableCondition, at);
    api::capi::markTrue(conditions, api::capi::kReadyCondition, at);
  } else {
    const std::string message = "Minimum availability requires " +
                                std::to_string(desired - maxUnavailable) + " replicas, current " +
                                std::to_string(status.availableReplicas) + " available";
    api::capi::markFalse(conditions, kAvailableCondition, kWaitingForAvailableMachinesReason,
                         api::capi::kSeverityWarning, message, at);
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kWaitingForAvailableMachinesReason,
                         api::capi::kSeverityWarning, message, at);
  }
}

runtime::Controller& MachineDeploymentController::setup(runtime::Manager& manager,
                                                        const CapiOptions& options) {
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options.machineDeploymentConcurrency;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  controller.watchFor(manager.informerFor<MachineDeployment>());
  controller.watchOwned(manager.informerFor<MachineSet>(), "MachineDeployment");
  // Machine readiness decides how far a rollout may go; the MachineSet's status follows it
  // too, but only after that set's own reconcile.
  controller.watchMapped(manager.informerFor<Machine>(), [](const api::Object& object) {
    const auto& labels = object.metadata().labels;
    auto it = labels.find(api::capi::kMachineDeploymentNameLabel);
    if (it == labels.end()) {
      return std::vector<runtime::Request>{};
    }
    return std::vector<runtime::Request>{{object.metadata().namespace_, it->second}};
  });
  return controller;
}

}  // namespace nodewright::controllers::capi
