#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/core/apps.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/object.h"
#include "controllers/provisioning/pending_pods.h"
#include "controllers/provisioning/scheduling/scheduler.h"
#include "kube/cache.h"

// What one scheduling pass sees of the cluster, copied out of the informer caches so the pass
// runs on a consistent picture while the caches move on. The scheduling::Input it builds points
// into it, so it must outlive the pass.
namespace nodewright::controllers::provisioning {

struct ClusterCaches {
  const kube::Cache* pods = nullptr;
  const kube::Cache* nodes = nullptr;
  const kube::Cache* nodeClaims = nullptr;
  const kube::Cache* nodePools = nullptr;
  const kube::Cache* daemonSets = nullptr;
};

// A disruption's "what if": the pods of `nodes` are the ones to place, as if those nodes were
// gone; `excludedNodes` (other disruptions' candidates) take no pods either. Only nodes that
// are up count as room: a claim still in flight (the provisioner's, or a replacement) may
// never come up, and a candidate must not be deleted on the strength of one.
struct DisruptionScope {
  std::set<std::string> nodes;
  std::set<std::string> excludedNodes;
};

class ClusterSnapshot {
 public:
  // `recentClaims` are NodeClaims this process created that the cache may not show yet; each
  // counts unless the cache has it. With a scope, the pods to place are those the scope's nodes
  // would have to give up, not the pending ones.
  ClusterSnapshot(const ClusterCaches& caches, PendingRule rule,
                  const std::vector<api::karpenter::NodeClaim>& recentClaims,
                  const DisruptionScope* scope = nullptr);

  const std::vector<const api::corev1::Pod*>& pendingPods() const { return pending_; }
  // Live NodePools (not being deleted), by name.
  const std::map<std::string, const api::karpenter::NodePool*>& nodePools() const { return pools_; }
  // The pending pod of `key` ("namespace/name") as an object, for events; nullptr if unknown.
  const api::Object* pendingPod(const std::string& key) const;
  // Whether the NodeClaim cache had `name` when the snapshot was taken.
  bool cachedClaim(const std::string& name) const { return claimNames_.count(name) > 0; }

  // The scheduler's input: the pending pods, nodes and in-flight claims, DaemonSet pods, and
  // one option per pool given its instance types (pools without types are left out).
  scheduling::Input input(
      const std::map<std::string, std::vector<cloud::InstanceType>>& typesByPool) const;

 private:
  // `claim` is the node's NodeClaim, when it has one.
  void addNode(const api::corev1::Node& node, const std::vector<api::Object>& boundPods,
               const api::karpenter::NodeClaim* claim);
  void addInFlightClaim(const api::karpenter::NodeClaim& claim);
  scheduling::ResourceList daemonSetOverhead(const api::Labels& labels,
                                             const std::vector<api::corev1::Taint>& taints) const;

  std::vector<api::Object> keep_;  // the objects the pointers below point into
  std::deque<api::corev1::Pod> daemonSetPods_;
  std::vector<const api::corev1::Pod*> pending_;
  std::map<std::string, api::Object> pendingObjects_;  // by podKey
  std::vector<scheduling::ExistingNode> nodes_;
  std::map<std::string, const api::karpenter::NodePool*> pools_;
  std::map<std::string, scheduling::ResourceList> inUse_;  // by pool
  std::set<std::string> claimNames_;
};

}  // namespace nodewright::controllers::provisioning
