#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/core/policy.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/consolidation_cost.h"
#include "controllers/disruption/replacements.h"

// Which nodes consolidation may remove or replace, and why the others stay. Pure over the
// cluster view, the PodDisruptionBudgets and the pools' instance types, so the controller and
// `nodewright disruption plan` see the same candidates.
namespace nodewright::controllers::disruption {

inline constexpr const char* kPolicyWhenEmpty = "WhenEmpty";
inline constexpr const char* kPolicyWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized";
inline constexpr const char* kPolicyBalanced = "Balanced";

// A pool's consolidation policy, with the API's default for an unset one.
std::string consolidationPolicy(const api::karpenter::NodePool& pool);

struct ConsolidationCandidate {
  const ClaimView* view = nullptr;
  const api::karpenter::NodePool* pool = nullptr;
  std::string instanceType, zone, capacityType;
  double price = 0;  // $/h of the offering the node runs on
  // Karpenter's ordering key: the pods' eviction costs times the node's remaining lifetime.
  double disruptionCost = 0;
  // Balanced's cost of moving it: 1 for the node plus each pod's eviction cost (>= 0).
  double moveCost = 0;

  const std::string& name() const { return view->claim->metadata.name; }
  bool empty() const { return view->pods.empty(); }
  // Under WhenEmpty only emptiness applies; the other policies also replace underused nodes.
  bool underutilizedAllowed() const { return consolidationPolicy(*pool) != kPolicyWhenEmpty; }
};

struct Unconsolidatable {
  std::string claim;
  std::string why;  // "pdb default/web prevents eviction of pod default/web-1", ...
};

// Whether a PodDisruptionBudget or a do-not-disrupt annotation is why `u` stays: told to the user
// (Unconsolidatable events, the plan) where the other exclusions are routine.
bool keptByProtection(const Unconsolidatable& u);

struct ConsolidationCandidates {
  // Lowest disruption cost first (ties: older claim first, then by name).
  std::vector<ConsolidationCandidate> ready;
  std::vector<Unconsolidatable> excluded;
  // Balanced's totals per NodePool, over every priced candidate the exclusions kept, whether
  // or not consolidateAfter has passed for it (upstream: before ShouldDisrupt).
  std::map<std::string, PoolTotals> totals;
};

struct CandidateInput {
  const ClusterView* view = nullptr;
  const provisioning::ClusterCaches* caches = nullptr;  // for nominated pods
  const std::vector<api::corev1::PodDisruptionBudget>* pdbs = nullptr;
  const TypesByPool* types = nullptr;
  core::TimePoint now;
  // When the claim's node last had a pod scheduled or removed, if the caller tracks it; used
  // when the claim has neither a Consolidatable condition nor status.lastPodEventTime.
  LastPodSeen lastPodSeen;
};

// Initialized nodes of NodePools with consolidation on, excluding (with the reason): static
// pools, consolidateAfter Never, nodes already disrupting (a command, deleting, a replacement
// in flight), do-not-disrupt nodes and pods, pods no PodDisruptionBudget lets go, nodes
// nominated for pending pods, nodes whose price is unknown, and nodes inside consolidateAfter.
ConsolidationCandidates findConsolidationCandidates(const CandidateInput& input);

// The first PodDisruptionBudget that blocks evicting `pod` ("pdb default/x prevents eviction
// of pod default/y"), or "": one whose status allows no disruption, or more than one budget
// over the pod (the Eviction API refuses those).
std::string pdbBlocking(const api::corev1::Pod& pod,
                        const std::vector<api::corev1::PodDisruptionBudget>& pdbs);

}  // namespace nodewright::controllers::disruption
