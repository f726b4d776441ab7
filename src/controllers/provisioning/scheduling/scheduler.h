#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "api/karpenter/nodepool.h"
#include "api/labels.h"
#include "cloud/instance_type.h"

// The provisioning scheduler: a simulation of the pending pods onto the nodes the cluster has,
// the NodeClaims in flight, and new NodeClaims from the NodePools, as Karpenter's scheduler does
// it. Pure and cloud-neutral: the caller gathers the inputs from its caches and the
// CloudProvider, and acts on the results (creates the NodeClaims, nominates the pods).
namespace nodewright::controllers::provisioning::scheduling {

using ResourceList = cloud::ResourceList;

// A node pods can go to without a launch: a registered Node, or a NodeClaim in flight (launched
// or not yet). For an unlaunched claim the caller passes its known labels (the single-valued
// requirements) and, as allocatable, the resources it was created for, so the pods it was made
// for fit again and no second claim is launched for them.
struct ExistingNode {
  std::string name;      // the Node's name, or the NodeClaim's for one without a Node yet
  std::string nodePool;  // empty when not managed by a NodePool
  api::Labels labels;
  std::vector<api::corev1::Taint> taints;
  ResourceList allocatable;
  // What the pods bound or nominated to it already request (DaemonSet pods included).
  ResourceList requested;
  // Pods already there, for pod (anti-)affinity and topology spread counting. Not owned.
  std::vector<const api::corev1::Pod*> pods;
  // A node being deleted or disrupted takes no new pods but its pods still count for topology.
  bool schedulable = true;
};

// A NodePool with what its node class can launch.
struct NodePoolOption {
  const api::karpenter::NodePool* pool = nullptr;  // not owned
  // The compatible instance types for the pool's node class (from CloudProvider::instanceTypes),
  // already filtered by the node class (network interfaces). Not owned.
  const std::vector<cloud::InstanceType>* instanceTypes = nullptr;
  // What the pool's nodes use now (NodePool status.resources), checked against spec.limits:
  // a launch that could exceed a limit is not made (limits block launches, never disrupt).
  ResourceList inUse;
};

struct Input {
  // The pending pods to place. Not owned.
  std::vector<const api::corev1::Pod*> pods;
  std::vector<ExistingNode> nodes;
  std::vector<NodePoolOption> pools;
  // One pod per DaemonSet (its template as a pod): each new node also runs those whose
  // tolerations, node selector and affinity admit it, and its capacity must hold them.
  std::vector<const api::corev1::Pod*> daemonSetPods;
};

// A NodeClaim to create.
struct NewNodeClaim {
  std::string nodePool;
  // The NodePool's template requirements narrowed by the pods' (node selector, required node
  // affinity, zone chosen by topology), plus node.kubernetes.io/instance-type In the instance
  // types below. minValues carried over from the NodePool.
  std::vector<api::karpenter::NodeSelectorRequirementWithMinValues> requirements;
  // Every instance type of the pool that can hold all the pods (and the DaemonSet overhead)
  // under these requirements, cheapest available offering first. Never empty.
  std::vector<std::string> instanceTypes;
  // The pods' requests plus the DaemonSet overhead: what the claim asks for.
  ResourceList requests;
  std::vector<const api::corev1::Pod*> pods;
  // The cheapest available offering price of instanceTypes[0] (for reporting).
  double cheapestPrice = 0;
};

struct Results {
  std::vector<NewNodeClaim> newNodeClaims;
  // Pods placed on existing nodes or in-flight claims: "namespace/name" -> ExistingNode::name.
  std::map<std::string, std::string> existingNodes;
  // Pods that fit nowhere: "namespace/name" -> why ("incompatible with nodepool \"default\":
  // no instance type satisfies nvidia.com/gpu=1; ...").
  std::map<std::string, std::string> errors;
};

struct Options {
  // Karpenter's default of 60 types is a launch detail (CreateFleet); the scheduler keeps them
  // all unless this is set.
  std::optional<size_t> maxInstanceTypesPerClaim;
};

// One scheduling pass. The caller keeps the inputs alive for the call.
Results schedule(const Input& input, const Options& options = {});

}  // namespace nodewright::controllers::provisioning::scheduling
