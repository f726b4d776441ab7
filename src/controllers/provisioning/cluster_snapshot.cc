#include "controllers/provisioning/cluster_snapshot.h"

#include <algorithm>
#include <iterator>

#include "api/core/affinity.h"
#include "api/core/pod_requests.h"
#include "api/core/taint.h"
#include "api/karpenter/well_known.h"
#include "kube/client.h"

namespace nodewright::controllers::provisioning {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::corev1::Taint;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

bool terminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

std::vector<Taint> claimTaints(const NodeClaim& claim) {
  std::vector<Taint> out;
  for (const auto& t : claim.spec.taints) {
    Taint taint;
    taint.key = t.key;
    taint.value = t.value;
    taint.effect = t.effect;
    out.push_back(std::move(taint));
  }
  return out;
}

bool hasTaint(const std::vector<api::karpenter::Taint>& taints, const Taint& taint) {
  return std::any_of(taints.begin(), taints.end(), [&](const api::karpenter::Taint& t) {
    return t.key == taint.key && t.effect == taint.effect;
  });
}

// Whether a DaemonSet's pod would run on a node with these labels and taints: it tolerates the
// taints that keep pods off and its node selector and required affinity admit the node.
bool daemonRunsOn(const Pod& pod, const api::Labels& labels, const std::vector<Taint>& taints) {
  for (const auto& taint : taints) {
    if (taint.effect != api::corev1::kTaintEffectPreferNoSchedule &&
        !api::corev1::tolerates(pod.spec.tolerations, taint)) {
      return false;
    }
  }
  for (const auto& [key, value] : pod.spec.nodeSelector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  if (pod.spec.affinity && pod.spec.affinity->nodeAffinity &&
      pod.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    return api::corev1::matches(
        *pod.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution, labels,
        "");
  }
  return true;
}

// Taints a node carries only while it starts (kubelet, cloud controller, Karpenter's
// registration). The DaemonSet controller tolerates the first ones on its pods.
bool isStartingTaint(const Taint& taint) {
  return taint.key == api::karpenter::kUnregisteredTaintKey ||
         taint.key == "node.kubernetes.io/not-ready" ||
         taint.key == "node.kubernetes.io/unreachable" ||
         taint.key == "node.cloudprovider.kubernetes.io/uninitialized";
}

}  // namespace

ClusterSnapshot::ClusterSnapshot(const ClusterCaches& caches, PendingRule rule,
                                 const std::vector<NodeClaim>& recentClaims,
                                 const DisruptionScope* scope) {
  for (api::Object& object : caches.daemonSets->list()) {
    const auto* ds = object.as<api::corev1::DaemonSet>();
    if (ds == nullptr || ds->metadata.deletionTimestamp) {
      continue;
    }
    Pod pod;
    pod.metadata = ds->spec.template_.metadata;
    pod.metadata.namespace_ = ds->metadata.namespace_;
    pod.metadata.name = ds->metadata.name;
    pod.spec = ds->spec.template_.spec;
    daemonSetPods_.push_back(std::move(pod));
  }
  for (api::Object& object : caches.nodePools->list()) {
    const auto* pool = object.as<NodePool>();
    if (pool != nullptr && !pool->metadata.deletionTimestamp) {
      pools_[pool->metadata.name] = pool;
      keep_.push_back(std::move(object));
    }
  }
  for (api::Object& object : caches.pods->list()) {
    const auto* pod = object.as<Pod>();
    const bool place =
        pod != nullptr &&
        (scope == nullptr ? isProvisionable(*pod, rule)
                          : scope->nodes.count(pod->spec.nodeName) && isReschedulable(*pod));
    if (place) {
      pending_.push_back(pod);
      pendingObjects_.emplace(podKey(*pod), std::move(object));
    }
  }
  std::vector<api::Object> claims = caches.nodeClaims->list();
  for (const api::Object& object : claims) {
    claimNames_.insert(object.metadata().name);
  }
  for (const NodeClaim& claim : recentClaims) {
    if (!claimNames_.count(claim.metadata.name)) {
      claims.emplace_back(&kube::kindOf<NodeClaim>(), std::make_shared<NodeClaim>(claim));
    }
  }
  std::map<std::string, const NodeClaim*> byProviderID;
  for (const api::Object& object : claims) {
    if (const auto* claim = object.as<NodeClaim>(); claim && !claim->status.providerID.empty()) {
      byProviderID[claim->status.providerID] = claim;
    }
  }
  std::set<std::string> registered;
  for (api::Object& object : caches.nodes->list()) {
    const auto* node = object.as<Node>();
    if (node == nullptr) {
      continue;
    }
    if (!node->spec.providerID.empty()) {
      registered.insert(node->spec.providerID);
    }
    if (scope != nullptr && (scope->nodes.count(node->metadata.name) ||
                             scope->excludedNodes.count(node->metadata.name))) {
      continue;
    }
    std::vector<api::Object> bound = caches.pods->byIndex(kube::kByNodeName, node->metadata.name);
    auto owner = byProviderID.find(node->spec.providerID);
    addNode(*node, bound, owner == byProviderID.end() ? nullptr : owner->second);
    for (api::Object& pod : bound) {
      keep_.push_back(std::move(pod));
    }
    keep_.push_back(std::move(object));
  }
  for (api::Object& object : claims) {
    const auto* claim = object.as<NodeClaim>();
    if (claim == nullptr) {
      continue;
    }
    const std::string pool = claim->metadata.labels.count(api::karpenter::kNodePoolLabel)
                                 ? claim->metadata.labels.at(api::karpenter::kNodePoolLabel)
                                 : std::string();
    const auto& used =
        claim->status.capacity.empty() ? claim->spec.resources.requests : claim->status.capacity;
    for (const auto& [resource, quantity] : used) {
      inUse_[pool][resource] += quantity;
    }
    if (scope == nullptr &&
        (claim->status.providerID.empty() || !registered.count(claim->status.providerID))) {
      addInFlightClaim(*claim);
    }
    keep_.push_back(std::move(object));
  }
}

const api::Object* ClusterSnapshot::pendingPod(const std::string& key) const {
  auto it = pendingObjects_.find(key);
  return it == pendingObjects_.end() ? nullptr : &it->second;
}

scheduling::ResourceList ClusterSnapshot::daemonSetOverhead(
    const api::Labels& labels, const std::vector<Taint>& taints) const {
  scheduling::ResourceList total;
  for (const Pod& pod : daemonSetPods_) {
    if (daemonRunsOn(pod, labels, taints)) {
      for (const auto& [resource, quantity] : api::corev1::podRequests(pod)) {
        total[resource] += quantity;
      }
    }
  }
  return total;
}

void ClusterSnapshot::addNode(const Node& node, const std::vector<api::Object>& boundPods,
                              const NodeClaim* claim) {
  scheduling::ExistingNode out;
  out.name = node.metadata.name;
  out.labels = node.metadata.labels;
  if (auto it = out.labels.find(api::karpenter::kNodePoolLabel); it != out.labels.end()) {
    out.nodePool = it->second;
  }
  const bool initialized = out.labels.count(api::karpenter::kInitializedLabel) > 0;
  for (const Taint& taint : node.spec.taints) {
    if (taint.key == api::karpenter::kDisruptedTaintKey) {
      out.schedulable = false;
    }
    const bool startup =
        !initialized && claim != nullptr && hasTaint(claim->spec.startupTaints, taint);
    // The scheduler drops the ephemeral ones (not-ready, unregistered, ...) itself.
    if (!startup) {
      out.taints.push_back(taint);
    }
  }
  out.allocatable = node.status.allocatable;
  for (const api::Object& object : boundPods) {
    const auto* pod = object.as<Pod>();
    if (pod == nullptr || terminal(*pod)) {
      continue;
    }
    out.pods.push_back(pod);
    for (const auto& [resource, quantity] : api::corev1::podRequests(*pod)) {
      out.requested[resource] += quantity;
    }
  }
  if (!initialized) {
    // DaemonSet pods arrive once the node is up; hold their room now.
    bool hasDaemons = std::any_of(out.pods.begin(), out.pods.end(),
                                  [](const Pod* p) { return isDaemonSetPod(*p); });
    if (!hasDaemons) {
      std::vector<Taint> lasting;
      std::copy_if(out.taints.begin(), out.taints.end(), std::back_inserter(lasting),
                   [](const Taint& t) { return !isStartingTaint(t); });
      for (const auto& [resource, quantity] : daemonSetOverhead(out.labels, lasting)) {
        out.requested[resource] += quantity;
      }
    }
  }
  if (node.metadata.deletionTimestamp || node.spec.unschedulable) {
    out.schedulable = false;
  }
  nodes_.push_back(std::move(out));
}

void ClusterSnapshot::addInFlightClaim(const NodeClaim& claim) {
  scheduling::ExistingNode out;
  out.name = claim.metadata.name;
  out.labels = claim.metadata.labels;
  if (auto it = out.labels.find(api::karpenter::kNodePoolLabel); it != out.labels.end()) {
    out.nodePool = it->second;
  }
  out.taints = claimTaints(claim);
  // Before launch the claim's size is what it was made for: the pods planned onto it fit again,
  // and nothing else does until the cloud says what it launched.
  out.allocatable =
      claim.status.allocatable.empty() ? claim.spec.resources.requests : claim.status.allocatable;
  // No DaemonSet room is held here: the scheduler planned it into the claim with its own rules,
  // and counting it again by other ones could leave a planned pod short and launch a claim per
  // pass. A pod nominated here that does not fit once the Node is up is simply pending again.
  out.schedulable = !claim.metadata.deletionTimestamp;
  nodes_.push_back(std::move(out));
}

scheduling::Input ClusterSnapshot::input(
    const std::map<std::string, std::vector<cloud::InstanceType>>& typesByPool) const {
  scheduling::Input in;
  in.pods = pending_;
  in.nodes = nodes_;
  for (const Pod& pod : daemonSetPods_) {
    in.daemonSetPods.push_back(&pod);
  }
  for (const auto& [name, pool] : pools_) {
    // Pods may land on a static pool's nodes (they are in `nodes`), but never grow it.
    if (api::karpenter::isStatic(*pool)) {
      continue;
    }
    auto types = typesByPool.find(name);
    if (types == typesByPool.end()) {
      continue;
    }
    scheduling::NodePoolOption option;
    option.pool = pool;
    option.instanceTypes = &types->second;
    if (auto used = inUse_.find(name); used != inUse_.end()) {
      option.inUse = used->second;
    }
    in.pools.push_back(std::move(option));
  }
  return in;
}

}  // namespace nodewright::controllers::provisioning
