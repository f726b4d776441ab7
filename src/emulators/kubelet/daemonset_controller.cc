#include "emulators/kubelet/daemonset_controller.h"

#include <algorithm>

#include "api/codec.h"

#include "emulators/kubelet/objects.h"
#include "emulators/kubelet/planner.h"
#include "emulators/kubelet/replicaset_controller.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::DaemonSet;
using api::corev1::Node;
using api::corev1::Pod;
using api::corev1::Toleration;
using runtime::Outcome;
using runtime::Result;

Toleration exists(const char* key, const char* effect) {
  Toleration t;
  t.key = key;
  t.operator_ = api::corev1::kTolerationOpExists;
  t.effect = effect;
  return t;
}

Pod podFor(const DaemonSet& set, const std::string& node) {
  Pod pod = podFromTemplate(set.metadata, "DaemonSet", set.spec.template_);
  pod.spec.tolerations = daemonTolerations(pod.spec);
  pod.spec.nodeName = node;
  return pod;
}

}  // namespace

std::vector<Toleration> daemonTolerations(const api::corev1::PodSpec& spec) {
  using api::corev1::kTaintEffectNoExecute;
  using api::corev1::kTaintEffectNoSchedule;
  std::vector<Toleration> out = spec.tolerations;
  std::vector<Toleration> automatic = {
      exists("node.kubernetes.io/not-ready", kTaintEffectNoExecute),
      exists("node.kubernetes.io/unreachable", kTaintEffectNoExecute),
      exists("node.kubernetes.io/disk-pressure", kTaintEffectNoSchedule),
      exists("node.kubernetes.io/memory-pressure", kTaintEffectNoSchedule),
      exists("node.kubernetes.io/pid-pressure", kTaintEffectNoSchedule),
      exists("node.kubernetes.io/unschedulable", kTaintEffectNoSchedule),
  };
  const bool hostNetwork = spec.unknown.is_object() && spec.unknown.value("hostNetwork", false);
  if (hostNetwork) {
    automatic.push_back(exists("node.kubernetes.io/network-unavailable", kTaintEffectNoSchedule));
  }
  for (auto& t : automatic) {
    if (std::find(out.begin(), out.end(), t) == out.end()) {
      out.push_back(std::move(t));
    }
  }
  return out;
}

DaemonPlacement daemonPlacement(const DaemonSet& set, const Node& node) {
  DaemonPlacement placement;
  if (!isRegistered(node) || !nodeAffinityMatches(set.spec.template_.spec, node)) {
    return placement;
  }
  const auto tolerations = daemonTolerations(set.spec.template_.spec);
  std::vector<api::corev1::Taint> noExecute;
  for (const auto& taint : node.spec.taints) {
    if (taint.effect == api::corev1::kTaintEffectNoExecute) {
      noExecute.push_back(taint);
    }
  }
  placement.shouldContinue = untolerated(tolerations, noExecute) == nullptr;
  placement.shouldRun = placement.shouldContinue && !node.metadata.deletionTimestamp &&
                        untolerated(tolerations, node.spec.taints) == nullptr;
  return placement;
}

DaemonSetController::DaemonSetController(kube::Client& client, const core::Clock& clock)
    : client_(client), expectations_(clock) {}

Outcome DaemonSetController::reconcile(const runtime::Request& request, runtime::Context& context) {
  NW_CHECK(sets_ != nullptr && pods_ != nullptr && nodes_ != nullptr);
  const std::string key = request.key();
  auto cached = sets_->get(key);
  if (!cached) {
    expectations_.forget(key);
    return Result::done();
  }
  const DaemonSet& set = typedOf<DaemonSet>(*cached);
  if (set.metadata.deletionTimestamp) {
    return Result::done();
  }
  const auto podObjects = pods_->byIndex(kube::kByOwner, set.metadata.uid);
  std::map<std::string, bool> names;
  for (const Pod* pod : ownedPods(podObjects, set.metadata.uid)) {
    names[pod->metadata.name] = isPodActive(*pod);
  }
  const auto pending = expectations_.settle(key, names);
  std::map<std::string, std::vector<const Pod*>> byNode;
  for (const Pod* pod : ownedPods(podObjects, set.metadata.uid)) {
    if (isPodActive(*pod) && !pending.deleting.contains(pod->metadata.name)) {
      byNode[pod->spec.nodeName].push_back(pod);
    }
  }
  std::set<std::string> creating;
  for (const auto& [name, node] : pending.creating) {
    creating.insert(node);
  }

  const auto& podKind = kube::kindOf<Pod>(client_.registry());
  std::vector<const Pod*> doomed;  // misscheduled and duplicate pods
  std::vector<const Pod*> orphaned;
  api::corev1::DaemonSetStatus status = set.status;
  status.desiredNumberScheduled = status.currentNumberScheduled = status.numberMisscheduled = 0;
  status.numberReady = 0;
  std::set<std::string> seen;
  for (const api::Object& object : nodes_->list()) {
    const Node& node = typedOf<Node>(object);
    const std::string& name = node.metadata.name;
    seen.insert(name);
    const DaemonPlacement placement = daemonPlacement(set, node);
    auto it = byNode.find(name);
    std::vector<const Pod*> running = it == byNode.end() ? std::vector<const Pod*>() : it->second;
    std::sort(running.begin(), running.end(), [](const Pod* a, const Pod* b) {
      return a->metadata.creationTimestamp < b->metadata.creationTimestamp;
    });
    status.desiredNumberScheduled += placement.shouldRun ? 1 : 0;
    if (!running.empty() && !placement.shouldContinue) {
      ++status.numberMisscheduled;
      doomed.insert(doomed.end(), running.begin(), running.end());
      continue;
    }
    if (!running.empty()) {
      ++status.currentNumberScheduled;
      status.numberReady += isPodReady(*running.front()) ? 1 : 0;
      doomed.insert(doomed.end(), running.begin() + 1, running.end());  // duplicates
    } else if (placement.shouldRun && !creating.contains(name) && !context.cancelled()) {
      auto created = client_.create(objectOf(podKind, podFor(set, name)));
      if (!created) {
        return apiFailure(created.error(), "creating the pod of " + key + " on " + name);
      }
      expectations_.created(key, created->metadata().name, name);
    }
  }
  for (const auto& [node, pods] : byNode) {
    if (!seen.contains(node)) {
      orphaned.insert(orphaned.end(), pods.begin(), pods.end());
    }
  }
  // Pods on Nodes that are gone have no kubelet to stop them: removed at once.
  for (const auto* list : {&doomed, &orphaned}) {
    for (const Pod* pod : *list) {
      kube::DeleteOptions options;
      options.preconditionUid = pod->metadata.uid;
      if (list == &orphaned) {
        options.gracePeriodSeconds = 0;
      }
      auto removed = client_.remove(podKind, pod->metadata.namespace_, pod->metadata.name, options);
      if (!removed && !removed.error().is(kube::Reason::NotFound)) {
        return apiFailure(removed.error(), "deleting pod " + pod->metadata.name);
      }
      expectations_.deleted(key, pod->metadata.name);
    }
  }

  status.numberAvailable = status.numberReady;
  status.numberUnavailable = std::max(0, status.desiredNumberScheduled - status.numberAvailable);
  status.updatedNumberScheduled = status.currentNumberScheduled;
  status.observedGeneration = set.metadata.generation;
  return writeStatusIfChanged(client_, set, status);
}

runtime::Controller& DaemonSetController::setup(runtime::Manager& manager) {
  kube::Informer& sets = manager.informerFor<DaemonSet>();
  kube::Informer& pods = manager.informerFor<Pod>();
  kube::Informer& nodes = manager.informerFor<Node>();
  sets_ = &sets.cache();
  pods_ = &pods.cache();
  nodes_ = &nodes.cache();
  runtime::Controller& controller = manager.addController(kName, *this);
  controller.watchFor(sets);
  controller.watchOwned(pods, "DaemonSet");
  controller.watchMapped(nodes, [this](const api::Object&) {
    std::vector<runtime::Request> out;
    for (const std::string& key : sets_->keys()) {
      out.push_back(runtime::Request::fromKey(key));
    }
    return out;
  });
  return controller;
}

}  // namespace nodewright::emulators::kubelet
