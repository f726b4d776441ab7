#include "controllers/capi/machine_set_controller.h"

#include <algorithm>

#include "api/capi/conditions.h"
#include "api/codec.h"
#include "controllers/capi/delete_policy.h"
#include "controllers/capi/external.h"
#include "controllers/capi/well_known.h"
#include "core/log.h"
#include "runtime/api_outcome.h"

namespace nodewright::controllers::capi {
namespace {

using api::capi::Machine;
using api::capi::MachineSet;
using runtime::Outcome;
using runtime::Result;

// kube's name-suffix alphabet: no vowels (no words), no confusable 0/1/3.
constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr int kSuffixLength = 5;
// Bootstrap and infrastructure templates end in this; their clones do not.
constexpr std::string_view kTemplateSuffix = "Template";

bool fullyLabeled(const Machine& machine, const MachineSet& set) {
  const auto& labels = machine.metadata.labels;
  return std::all_of(set.spec.template_.metadata.labels.begin(),
                     set.spec.template_.metadata.labels.end(), [&](const auto& label) {
                       auto it = labels.find(label.first);
                       return it != labels.end() && it->second == label.second;
                     });
}

}  // namespace

bool machineReady(const Machine& machine) {
  return !machine.metadata.deletionTimestamp &&
         api::capi::isTrue(machine.status.conditions, api::capi::kReadyCondition);
}

bool machineAvailable(const Machine& machine, int32_t minReadySeconds, core::TimePoint now,
                      std::chrono::nanoseconds* wait) {
  if (wait != nullptr) {
    *wait = std::chrono::nanoseconds(0);
  }
  if (!machineReady(machine)) {
    return false;
  }
  if (minReadySeconds <= 0) {
    return true;
  }
  const auto* ready =
      api::capi::findCondition(machine.status.conditions, api::capi::kReadyCondition);
  const auto availableAt =
      ready->lastTransitionTime.point() + std::chrono::seconds(minReadySeconds);
  if (availableAt <= now) {
    return true;
  }
  if (wait != nullptr) {
    *wait = availableAt - now;
  }
  return false;
}

MachineSetController::MachineSetController(kube::Client& client, const core::Clock& clock)
    : client_(client),
      clock_(clock),
      machines_(client),
      sets_(client),
      clusters_(client),
      random_(std::random_device{}()) {}

kube::ApiResult<bool> MachineSetController::clusterDeleting(const MachineSet& set) {
  if (set.spec.clusterName.empty()) {
    return false;
  }
  auto cluster = clusters_.get(set.metadata.namespace_, set.spec.clusterName);
  if (!cluster) {
    if (cluster.error().is(kube::Reason::NotFound)) {
      return false;
    }
    return tl::unexpected(cluster.error());
  }
  return cluster->metadata.deletionTimestamp.has_value();
}

Outcome MachineSetController::reconcile(const runtime::Request& request,
                                        runtime::Context& context) {
  auto got = sets_.get(request.ns, request.name);
  if (!got) {
    return got.error().is(kube::Reason::NotFound)
               ? Result::done()
               : runtime::apiFailure(got.error(), "reading MachineSet " + request.key());
  }
  MachineSet set = std::move(*got);
  if (set.metadata.deletionTimestamp) {
    return Result::done();  // its Machines go with it (owner references)
  }
  auto machines = ownedMachines(set);
  if (!machines) {
    return runtime::apiFailure(machines.error(),
                               "listing the Machines of MachineSet " + request.key());
  }
  // Machines being deleted still count (as in CAPI since #3434): one is replaced only once it
  // is gone, so an OnDelete rollout can lower this set's replicas before a replacement appears,
  // and a scale-down does not pick a second victim while the first is still draining.
  const int desired = set.spec.replicas.value_or(1);
  const int diff = desired - static_cast<int>(machines->size());
  if (diff != 0 && !context.leading()) {
    return Result::done();
  }
  if (diff > 0) {
    // As CAPI: no new Machines for a Cluster being deleted. Its deletion removes Machines
    // first; replacing them would race the MachineSet's own deletion and leave orphans.
    auto deleting = clusterDeleting(set);
    if (!deleting) {
      return runtime::apiFailure(deleting.error(), "reading the Cluster of " + request.key());
    }
    if (*deleting) {
      return Result::done();
    }
  }
  bool creationFailed = false;
  std::optional<kube::ApiError> failure;
  if (diff > 0) {
    core::logInfo(context.log(), "creating machines",
                  {{"machineset", request.key()}, {"count", diff}});
    if (auto created = createMachines(set, diff, context); !created) {
      creationFailed = true;
      failure = created.error();
    }
  } else if (diff < 0) {
    core::logInfo(context.log(), "deleting machines",
                  {{"machineset", request.key()},
                   {"count", -diff},
                   {"policy", set.spec.deletePolicy.value_or(kRandomDeletePolicy)}});
    if (auto deleted = deleteMachines(set, *machines, static_cast<size_t>(-diff)); !deleted) {
      failure = deleted.error();
    }
  }
  if (diff != 0) {
    // Count what is there now, not what was there before this reconcile acted.
    if (auto now = ownedMachines(set)) {
      machines = std::move(now);
    }
  }
  const MachineSet before = set;
  const auto wait = computeStatus(set, *machines, creationFailed);
  if (api::toJson(set.status) != api::toJson(before.status)) {
    if (auto written = sets_.updateStatus(set); !written) {
      return runtime::apiFailure(written.error(),
                                 "updating the status of MachineSet " + request.key());
    }
  }
  if (failure) {
    return runtime::apiFailure(*failure, "scaling MachineSet " + request.key());
  }
  return wait.count() > 0 ? Result::after(wait) : Result::done();
}

kube::ApiResult<std::vector<Machine>> MachineSetController::ownedMachines(const MachineSet& set) {
  kube::ListOptions options;
  options.labelSelector = api::formatSelector(set.spec.selector);
  auto listed = machines_.list(set.metadata.namespace_, options);
  if (!listed) {
    return tl::unexpected(listed.error());
  }
  std::vector<Machine> owned;
  for (Machine& machine : *listed) {
    if (controllerUid(machine.metadata) == set.metadata.uid) {
      owned.push_back(std::move(machine));
    }
  }
  return owned;
}

kube::ApiStatus MachineSetController::createMachines(const MachineSet& set, int count,
                                                     runtime::Context& context) {
  auto infraTemplate =
      getExternal(client_, set.spec.template_.spec.infrastructureRef, set.metadata.namespace_);
  if (!infraTemplate) {
    return tl::unexpected(infraTemplate.error());
  }
  kube::ApiStatus first;
  for (int i = 0; i < count && !context.cancelled(); ++i) {
    if (auto created = createMachine(set, *infraTemplate); !created && first) {
      first = created;
    }
  }
  return first;
}

kube::ApiStatus MachineSetController::createMachine(const MachineSet& set,
                                                    const api::Object& infraTemplate) {
  const auto& tmpl = set.spec.template_;
  const std::string& ns = set.metadata.namespace_;
  Machine machine;
  machine.apiVersion = kApiVersion;
  machine.kind = "Machine";
  machine.metadata.name = set.metadata.name + "-" + randomSuffix();
  machine.metadata.namespace_ = ns;
  machine.metadata.labels = tmpl.metadata.labels;
  machine.metadata.annotations = tmpl.metadata.annotations;
  machine.metadata.labels[api::capi::kMachineSetNameLabel] =
      api::capi::formatLabelValue(set.metadata.name);
  machine.metadata.labels[api::capi::kClusterNameLabel] = set.spec.clusterName;
  if (auto it = set.metadata.labels.find(api::capi::kMachineDeploymentNameLabel);
      it != set.metadata.labels.end()) {
    machine.metadata.labels[it->first] = it->second;
  }
  machine.metadata.ownerReferences.push_back(controllerRef("MachineSet", set.metadata));
  machine.spec = tmpl.spec;
  machine.spec.clusterName = set.spec.clusterName;
  auto& configRef = machine.spec.bootstrap.configRef;
  if (configRef && !machine.spec.bootstrap.dataSecretName) {
    // Stands for the config a bootstrap provider would clone from its template; the minimal
    // bootstrap provider (bootstrap.h) only needs the reference to be there.
    if (configRef->kind.ends_with(kTemplateSuffix)) {
      configRef->kind.resize(configRef->kind.size() - kTemplateSuffix.size());
    }
    configRef->name = machine.metadata.name;
    configRef->namespace_ = ns;
  }

  CloneRequest clone;
  clone.templateRef = tmpl.spec.infrastructureRef;
  clone.ns = ns;
  clone.name = machine.metadata.name;
  clone.labels = machine.metadata.labels;
  clone.owner = controllerRef("MachineSet", set.metadata);
  clone.owner.controller = false;
  clone.owner.blockOwnerDeletion.reset();
  clone.fetchedTemplate = &infraTemplate;
  auto infra = cloneFromTemplate(client_, clone);
  if (!infra) {
    return tl::unexpected(infra.error());
  }
  machine.spec.infrastructureRef = infra->ref;
  auto created = machines_.create(machine);
  if (!created) {
    // Without its Machine the clone would only wait for the garbage collector. Only what this
    // call created is deleted: an existing object may already be another Machine's.
    if (infra->created) {
      (void)deleteExternal(client_, infra->ref, ns);
    }
    return tl::unexpected(created.error());
  }
  return {};
}

kube::ApiStatus MachineSetController::deleteMachines(const MachineSet& set,
                                                     std::vector<Machine> machines, size_t count) {
  kube::ApiStatus first;
  for (const Machine& machine : machinesToDelete(
           std::move(machines), count, set.spec.deletePolicy.value_or(kRandomDeletePolicy))) {
    if (machine.metadata.deletionTimestamp) {
      continue;  // already going
    }
    auto removed = machines_.remove(machine.metadata.namespace_, machine.metadata.name);
    if (!removed && !removed.error().is(kube::Reason::NotFound) && first) {
      first = tl::unexpected(removed.error());
    }
  }
  return first;
}

std::chrono::nanoseconds MachineSetController::computeStatus(MachineSet& set,
                                                             const std::vector<Machine>& machines,
                                                             bool creationFailed) const {
  const core::TimePoint now = clock_.now();
  auto& status = set.status;
  status.selector = api::formatSelector(set.spec.selector);
  status.replicas = 0;
  status.fullyLabeledReplicas = 0;
  status.readyReplicas = 0;
  status.availableReplicas = 0;
  std::chrono::nanoseconds soonest(0);
  for (const Machine& machine : machines) {
    if (machine.metadata.deletionTimestamp) {
      continue;
    }
    ++status.replicas;
    status.fullyLabeledReplicas += fullyLabeled(machine, set) ? 1 : 0;
    status.readyReplicas += machineReady(machine) ? 1 : 0;
    std::chrono::nanoseconds wait(0);
    if (machineAvailable(machine, set.spec.minReadySeconds, now, &wait)) {
      ++status.availableReplicas;
    } else if (wait.count() > 0 && (soonest.count() == 0 || wait < soonest)) {
      soonest = wait;
    }
  }
  status.observedGeneration = set.metadata.generation;

  const core::Time at(now);
  const int desired = set.spec.replicas.value_or(1);
  auto& conditions = status.conditions;
  if (creationFailed) {
    api::capi::markFalse(conditions, kMachinesCreatedCondition, kMachineCreationFailedReason,
                         api::capi::kSeverityError, "creating machines failed", at);
  } else {
    api::capi::markTrue(conditions, kMachinesCreatedCondition, at);
  }
  if (status.readyReplicas == status.replicas) {
    api::capi::markTrue(conditions, kMachinesReadyCondition, at);
  } else {
    api::capi::markFalse(conditions, kMachinesReadyCondition, kWaitingForInfrastructureReason,
                         api::capi::kSeverityInfo,
                         std::to_string(status.replicas - status.readyReplicas) + " of " +
                             std::to_string(status.replicas) + " machines are not ready",
                         at);
  }
  if (status.replicas < desired) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kScalingUpReason,
                         api::capi::kSeverityInfo,
                         "Scaling up MachineSet to " + std::to_string(desired) + " replicas", at);
  } else if (status.replicas > desired) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kScalingDownReason,
                         api::capi::kSeverityInfo,
                         "Scaling down MachineSet to " + std::to_string(desired) + " replicas", at);
  } else if (status.readyReplicas < desired) {
    api::capi::markFalse(conditions, api::capi::kReadyCondition, kWaitingForAvailableMachinesReason,
                         api::capi::kSeverityInfo, "", at);
  } else {
    api::capi::markTrue(conditions, api::capi::kReadyCondition, at);
  }
  return soonest;
}

std::string MachineSetController::randomSuffix() {
  std::lock_guard lock(mu_);
  std::uniform_int_distribution<size_t> pick(0, kSuffixAlphabet.size() - 1);
  std::string suffix;
  for (int i = 0; i < kSuffixLength; ++i) {
    suffix += kSuffixAlphabet[pick(random_)];
  }
  return suffix;
}

runtime::Controller& MachineSetController::setup(runtime::Manager& manager,
                                                 const CapiOptions& options) {
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options.machineSetConcurrency;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  controller.watchFor(manager.informerFor<MachineSet>());
  controller.watchOwned(manager.informerFor<Machine>(), "MachineSet");
  return controller;
}

}  // namespace nodewright::controllers::capi
