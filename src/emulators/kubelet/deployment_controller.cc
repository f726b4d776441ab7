#include "emulators/kubelet/deployment_controller.h"

#include <algorithm>

#include "api/codec.h"
#include "api/core/apps.h"
#include "core/hash.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Deployment;
using api::corev1::ReplicaSet;
using api::corev1::WorkloadCondition;
using runtime::Outcome;
using runtime::Result;

ReplicaSet replicaSetFor(const Deployment& d, const std::string& hash) {
  ReplicaSet set;
  set.apiVersion = "apps/v1";
  set.kind = "ReplicaSet";
  set.metadata.name = d.metadata.name + "-" + hash;
  set.metadata.namespace_ = d.metadata.namespace_;
  set.metadata.labels = d.spec.template_.metadata.labels;
  set.metadata.labels[kPodTemplateHashLabel] = hash;
  api::OwnerReference owner;
  owner.apiVersion = "apps/v1";
  owner.kind = "Deployment";
  owner.name = d.metadata.name;
  owner.uid = d.metadata.uid;
  owner.controller = true;
  owner.blockOwnerDeletion = true;
  set.metadata.ownerReferences = {owner};
  set.spec.replicas = d.spec.replicas.value_or(1);
  set.spec.minReadySeconds = d.spec.minReadySeconds;
  set.spec.selector = d.spec.selector.value_or(api::LabelSelector{});
  set.spec.selector->matchLabels[kPodTemplateHashLabel] = hash;
  set.spec.template_ = d.spec.template_;
  set.spec.template_.metadata.labels[kPodTemplateHashLabel] = hash;
  return set;
}

// maxUnavailable of a RollingUpdate (default 25%, rounded down); 0 for Recreate.
int32_t maxUnavailable(const Deployment& d, int32_t desired) {
  if (d.spec.strategy.type == "Recreate") {
    return 0;
  }
  api::IntOrString value = api::IntOrString::ofString("25%");
  if (d.spec.strategy.rollingUpdate && d.spec.strategy.rollingUpdate->maxUnavailable) {
    value = *d.spec.strategy.rollingUpdate->maxUnavailable;
  }
  if (!value.isString) {
    return static_cast<int32_t>(value.intValue);
  }
  const int64_t percent = std::atoll(value.stringValue.c_str());
  return static_cast<int32_t>(desired * percent / 100);
}

// Sets `type` to (status, reason, message); the transition time moves only when status does.
bool setCondition(std::vector<WorkloadCondition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  core::TimePoint now) {
  for (auto& c : conditions) {
    if (c.type != type) {
      continue;
    }
    if (c.status == status && c.reason == reason && c.message == message) {
      return false;
    }
    if (c.status != status) {
      c.lastTransitionTime = core::Time(now);
    }
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.lastUpdateTime = core::Time(now);
    return true;
  }
  WorkloadCondition c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.message = message;
  c.lastUpdateTime = core::Time(now);
  c.lastTransitionTime = core::Time(now);
  conditions.push_back(c);
  return true;
}

}  // namespace

std::string podTemplateHash(const api::corev1::PodTemplateSpec& tmpl, int32_t collisionCount) {
  api::corev1::PodTemplateSpec copy = tmpl;
  copy.metadata.labels.erase(kPodTemplateHashLabel);
  core::Hasher hasher;
  hasher.addString(api::toJson(copy).dump());
  hasher.addU64(static_cast<uint64_t>(collisionCount));
  // rand.SafeEncodeString's alphabet: no vowels, no look-alikes.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = hasher.value();
  std::string out;
  for (int i = 0; i < 10; ++i) {
    out += kAlphabet[h % kAlphabet.size()];
    h /= kAlphabet.size();
  }
  return out;
}

DeploymentController::DeploymentController(kube::Client& client, const core::Clock& clock)
    : client_(client), clock_(clock) {}

Outcome DeploymentController::reconcile(const runtime::Request& request, runtime::Context&) {
  NW_CHECK(deployments_ != nullptr && sets_ != nullptr);
  const std::string key = request.key();
  auto cached = deployments_->get(key);
  if (!cached) {
    return Result::done();
  }
  const Deployment& d = typedOf<Deployment>(*cached);
  if (d.metadata.deletionTimestamp) {
    return Result::done();
  }
  const int32_t desired = d.spec.replicas.value_or(1);
  const std::string hash = podTemplateHash(d.spec.template_, d.status.collisionCount.value_or(0));
  const auto& setKind = kube::kindOf<ReplicaSet>(client_.registry());

  std::vector<const ReplicaSet*> old;
  const ReplicaSet* current = nullptr;
  const auto setObjects = sets_->byIndex(kube::kByOwner, d.metadata.uid);
  for (const api::Object& object : setObjects) {
    const ReplicaSet& set = typedOf<ReplicaSet>(object);
    if (!isControlledBy(set.metadata, d.metadata.uid)) {
      continue;
    }
    auto label = set.metadata.labels.find(kPodTemplateHashLabel);
    if (label != set.metadata.labels.end() && label->second == hash) {
      current = &set;
    } else {
      old.push_back(&set);
    }
  }
  auto scale = [&](const ReplicaSet& set, int32_t replicas) -> kube::ApiStatus {
    if (set.spec.replicas.value_or(1) == replicas) {
      return {};
    }
    auto written = kube::updateWithRetry(client_, setKind, set.metadata.namespace_,
                                         set.metadata.name, [&](api::Object& object) {
                                           auto& s = *object.as<ReplicaSet>();
                                           if (s.spec.replicas.value_or(1) == replicas) {
                                             return false;
                                           }
                                           s.spec.replicas = replicas;
                                           return true;
                                         });
    if (!written && !written.error().is(kube::Reason::NotFound)) {
      return tl::unexpected(written.error());
    }
    return {};
  };
  if (current == nullptr) {
    auto created = client_.create(objectOf(setKind, replicaSetFor(d, hash)));
    if (!created && !created.error().is(kube::Reason::AlreadyExists)) {
      return apiFailure(created.error(), "creating the ReplicaSet of " + key);
    }
  } else if (auto scaled = scale(*current, desired); !scaled) {
    return apiFailure(scaled.error(), "scaling " + current->metadata.name);
  }
  for (const ReplicaSet* set : old) {
    if (auto scaled = scale(*set, 0); !scaled) {
      return apiFailure(scaled.error(), "scaling down " + set->metadata.name);
    }
  }
  // Old ReplicaSets past the history limit, oldest first, once empty.
  std::sort(old.begin(), old.end(), [](const ReplicaSet* a, const ReplicaSet* b) {
    return a->metadata.creationTimestamp < b->metadata.creationTimestamp;
  });
  const size_t limit = static_cast<size_t>(std::max(d.spec.revisionHistoryLimit.value_or(10), 0));
  for (size_t i = 0; i + limit < old.size(); ++i) {
    if (old[i]->status.replicas == 0 && old[i]->spec.replicas.value_or(1) == 0) {
      auto removed = client_.remove(setKind, old[i]->metadata.namespace_, old[i]->metadata.name);
      if (!removed && !removed.error().is(kube::Reason::NotFound)) {
        return apiFailure(removed.error(), "deleting " + old[i]->metadata.name);
      }
    }
  }

  api::corev1::DeploymentStatus status = d.status;
  status.observedGeneration = d.metadata.generation;
  status.replicas = status.readyReplicas = status.availableReplicas = 0;
  status.updatedReplicas = current != nullptr ? current->status.replicas : 0;
  for (const api::Object& object : setObjects) {
    const ReplicaSet& set = typedOf<ReplicaSet>(object);
    if (isControlledBy(set.metadata, d.metadata.uid)) {
      status.replicas += set.status.replicas;
      status.readyReplicas += set.status.readyReplicas;
      status.availableReplicas += set.status.availableReplicas;
    }
  }
  status.unavailableReplicas = std::max(0, desired - status.availableReplicas);
  const core::TimePoint now = clock_.now();
  const bool available = status.availableReplicas >= desired - maxUnavailable(d, desired);
  setCondition(status.conditions, "Available", available ? "True" : "False",
               available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
               available ? "Deployment has minimum availability."
                         : "Deployment does not have minimum availability.",
               now);
  const bool complete = status.updatedReplicas == desired && status.replicas == desired &&
                        status.availableReplicas == desired;
  const std::string setName = d.metadata.name + "-" + hash;
  setCondition(status.conditions, "Progressing", "True",
               complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
               "ReplicaSet \"" + setName + "\" " +
                   (complete ? "has successfully progressed." : "is progressing."),
               now);
  return writeStatusIfChanged(client_, d, status);
}

runtime::Controller& DeploymentController::setup(runtime::Manager& manager) {
  kube::Informer& deployments = manager.informerFor<Deployment>();
  kube::Informer& sets = manager.informerFor<ReplicaSet>();
  deployments_ = &deployments.cache();
  sets_ = &sets.cache();
  runtime::Controller& controller = manager.addController(kName, *this);
  controller.watchFor(deployments);
  controller.watchOwned(sets, "Deployment");
  return controller;
}

}  // namespace nodewright::emulators::kubelet
