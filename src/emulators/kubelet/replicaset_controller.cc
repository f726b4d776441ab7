#include "emulators/kubelet/replicaset_controller.h"

#include <algorithm>

#include "api/core/apps.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Pod;
using api::corev1::ReplicaSet;
using runtime::Outcome;
using runtime::Result;

int phaseRank(const Pod& pod) {
  if (pod.status.phase == "Pending") {
    return 0;
  }
  return pod.status.phase == "Running" ? 2 : 1;
}

}  // namespace

std::vector<const Pod*> ownedPods(const std::vector<api::Object>& objects,
                                  const std::string& ownerUid) {
  std::vector<const Pod*> out;
  for (const api::Object& object : objects) {
    const Pod& pod = typedOf<Pod>(object);
    if (isControlledBy(pod.metadata, ownerUid)) {
      out.push_back(&pod);
    }
  }
  return out;
}

bool deletionOrder(const Pod* a, const Pod* b) {
  const bool aBound = !a->spec.nodeName.empty();
  const bool bBound = !b->spec.nodeName.empty();
  if (aBound != bBound) {
    return !aBound;
  }
  if (phaseRank(*a) != phaseRank(*b)) {
    return phaseRank(*a) < phaseRank(*b);
  }
  if (isPodReady(*a) != isPodReady(*b)) {
    return !isPodReady(*a);
  }
  if (a->metadata.creationTimestamp != b->metadata.creationTimestamp) {
    return a->metadata.creationTimestamp > b->metadata.creationTimestamp;
  }
  return a->metadata.name > b->metadata.name;
}

ReplicaSetController::ReplicaSetController(kube::Client& client, const core::Clock& clock)
    : client_(client), clock_(clock), expectations_(clock) {}

Outcome ReplicaSetController::reconcile(const runtime::Request& request,
                                        runtime::Context& context) {
  NW_CHECK(sets_ != nullptr && pods_ != nullptr);
  const std::string key = request.key();
  auto cached = sets_->get(key);
  if (!cached) {
    expectations_.forget(key);
    return Result::done();
  }
  const ReplicaSet& set = typedOf<ReplicaSet>(*cached);
  if (set.metadata.deletionTimestamp) {
    return Result::done();  // the garbage collector takes its pods
  }
  const auto podObjects = pods_->byIndex(kube::kByOwner, set.metadata.uid);
  const auto pods = ownedPods(podObjects, set.metadata.uid);
  std::map<std::string, bool> names;
  for (const Pod* pod : pods) {
    names[pod->metadata.name] = isPodActive(*pod);
  }
  const auto pending = expectations_.settle(key, names);
  std::vector<const Pod*> active;
  for (const Pod* pod : pods) {
    if (isPodActive(*pod) && !pending.deleting.contains(pod->metadata.name)) {
      active.push_back(pod);
    }
  }
  const int want = set.spec.replicas.value_or(1);
  const int have = static_cast<int>(active.size() + pending.creating.size());
  const auto& podKind = kube::kindOf<Pod>(client_.registry());
  if (have < want) {
    const Pod pod = podFromTemplate(set.metadata, "ReplicaSet", set.spec.template_);
    for (int i = have; i < want && !context.cancelled(); ++i) {
      auto created = client_.create(objectOf(podKind, pod));
      if (!created) {
        return apiFailure(created.error(), "creating a pod of " + key);
      }
      expectations_.created(key, created->metadata().name);
    }
  } else if (have > want && static_cast<int>(active.size()) > 0) {
    std::sort(active.begin(), active.end(), deletionOrder);
    const int extra = std::min(have - want, static_cast<int>(active.size()));
    for (int i = 0; i < extra && !context.cancelled(); ++i) {
      const Pod& pod = *active[i];
      kube::DeleteOptions options;
      options.preconditionUid = pod.metadata.uid;
      auto removed = client_.remove(podKind, pod.metadata.namespace_, pod.metadata.name, options);
      if (!removed && !removed.error().is(kube::Reason::NotFound)) {
        return apiFailure(removed.error(), "deleting pod " + pod.metadata.name);
      }
      expectations_.deleted(key, pod.metadata.name);
    }
  }

  // Status from the cache, as kube's does: it catches up as pods are created and start.
  int ready = 0;
  int available = 0;
  std::optional<std::chrono::nanoseconds> recheck;
  const core::TimePoint now = clock_.now();
  for (const Pod* pod : active) {
    if (!isPodReady(*pod)) {
      continue;
    }
    ++ready;
    const auto* condition = api::corev1::findCondition(pod->status, "Ready");
    const auto readyFor = now - condition->lastTransitionTime.point();
    const auto minReady = std::chrono::seconds(set.spec.minReadySeconds);
    if (readyFor >= minReady) {
      ++available;
    } else {
      recheck = std::min(recheck.value_or(minReady), std::chrono::nanoseconds(minReady - readyFor));
    }
  }
  api::corev1::ReplicaSetStatus status = set.status;
  status.replicas = static_cast<int32_t>(active.size());
  status.fullyLabeledReplicas = status.replicas;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  status.observedGeneration = set.metadata.generation;
  if (auto written = writeStatusIfChanged(client_, set, status); !written) {
    return written;
  }
  return recheck ? Result::after(*recheck) : Result::done();
}

runtime::Controller& ReplicaSetController::setup(runtime::Manager& manager) {
  kube::Informer& sets = manager.informerFor<ReplicaSet>();
  kube::Informer& pods = manager.informerFor<Pod>();
  sets_ = &sets.cache();
  pods_ = &pods.cache();
  runtime::ControllerOptions options;
  options.workers = 2;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(sets);
  controller.watchOwned(pods, "ReplicaSet");
  return controller;
}

}  // namespace nodewright::emulators::kubelet
