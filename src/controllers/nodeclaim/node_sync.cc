#include "controllers/nodeclaim/node_sync.h"

#include <algorithm>

#include "api/codec.h"
#include "controllers/nodeclaim/well_known.h"

namespace nodewright::controllers::nodeclaim {
namespace {

using api::corev1::Node;

bool sameTaint(const api::corev1::Taint& a, const api::karpenter::Taint& b) {
  return a.key == b.key && a.effect == b.effect;
}

// Karpenter's Taints.Merge: adds each taint whose key and effect are not on the node yet.
void mergeTaints(std::vector<api::corev1::Taint>& into,
                 const std::vector<api::karpenter::Taint>& taints) {
  for (const auto& taint : taints) {
    if (std::any_of(into.begin(), into.end(),
                    [&](const api::corev1::Taint& t) { return sameTaint(t, taint); })) {
      continue;
    }
    api::corev1::Taint added;
    added.key = taint.key;
    added.value = taint.value;
    added.effect = taint.effect;
    if (taint.timeAdded) {
      added.timeAdded = *taint.timeAdded;
    }
    into.push_back(std::move(added));
  }
}

// The resources kubelet advertises itself; any other name is an extended resource a device
// plugin registers some time after the node is Ready.
bool extendedResource(const std::string& name) {
  return name != "cpu" && name != "memory" && name != "pods" && name != "ephemeral-storage" &&
         !name.starts_with("hugepages-");
}

std::string describeTaint(const api::corev1::Taint& taint) {
  return taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" + taint.effect;
}

}  // namespace

bool syncNode(Node& node, const api::karpenter::NodeClaim& claim) {
  const api::Json before = api::toJson(node);
  const bool firstRegistration = !node.metadata.labels.contains(kRegisteredLabel);
  for (const auto& [key, value] : claim.metadata.labels) {
    node.metadata.labels[key] = value;
  }
  node.metadata.labels[kRegisteredLabel] = "true";
  mergeTaints(node.spec.taints, claim.spec.taints);
  if (firstRegistration) {
    mergeTaints(node.spec.taints, claim.spec.startupTaints);
  }
  std::erase_if(node.spec.taints,
                [](const api::corev1::Taint& t) { return t.key == kUnregisteredTaintKey; });
  auto& owners = node.metadata.ownerReferences;
  if (std::none_of(owners.begin(), owners.end(),
                   [&](const api::OwnerReference& o) { return o.uid == claim.metadata.uid; })) {
    api::OwnerReference owner;
    owner.apiVersion = kNodeClaimApiVersion;
    owner.kind = "NodeClaim";
    owner.name = claim.metadata.name;
    owner.uid = claim.metadata.uid;
    owner.controller = true;
    owner.blockOwnerDeletion = true;
    owners.push_back(std::move(owner));
  }
  auto& finalizers = node.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kTerminationFinalizer) == finalizers.end()) {
    finalizers.push_back(kTerminationFinalizer);
  }
  return api::toJson(node) != before;
}

std::optional<Blocker> initializationBlocker(const Node& node,
                                             const api::karpenter::NodeClaim& claim) {
  const api::corev1::NodeCondition* ready = api::corev1::findCondition(node.status, "Ready");
  if (ready == nullptr || ready->status != "True") {
    return Blocker{"NodeNotReady", "Node status is NotReady"};
  }
  for (const auto& taint : node.spec.taints) {
    for (const auto& startup : claim.spec.startupTaints) {
      if (sameTaint(taint, startup)) {
        return Blocker{"StartupTaintsExist",
                       "StartupTaint \"" + describeTaint(taint) + "\" still exists"};
      }
    }
    if (taint.key == "node.kubernetes.io/not-ready" ||
        taint.key == "node.kubernetes.io/unreachable" ||
        taint.key == "node.cloudprovider.kubernetes.io/uninitialized") {
      return Blocker{"KnownEphemeralTaintsExist",
                     "KnownEphemeralTaint \"" + describeTaint(taint) + "\" still exists"};
    }
  }
  std::vector<std::string> expected;
  for (const auto* resources : {&claim.spec.resources.requests, &claim.status.capacity}) {
    for (const auto& [name, quantity] : *resources) {
      if (extendedResource(name) && !quantity.isZero()) {
        expected.push_back(name);
      }
    }
  }
  for (const auto& name : expected) {
    // kubelet zeroes an extended resource until its device plugin registers it, and
    // scheduling reads allocatable, so that is what has to be there.
    auto it = node.status.allocatable.find(name);
    if (it == node.status.allocatable.end() || it->second.isZero()) {
      return Blocker{"ResourceNotRegistered",
                     "Resource \"" + name + "\" was requested but not registered"};
    }
  }
  return std::nullopt;
}

}  // namespace nodewright::controllers::nodeclaim
