#include "controllers/disruption/consolidation_candidates.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "api/karpenter/well_known.h"
#include "cloud/well_known_labels.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/pending_pods.h"

namespace nodewright::controllers::disruption {
namespace {

using api::corev1::Pod;
using api::corev1::PodDisruptionBudget;
using api::karpenter::NodePool;

// The NodeClaim condition upstream sets once consolidateAfter has passed since the last pod
// scheduled to or left the node. Honoured when present; nothing here sets it yet.
constexpr const char* kConsolidatable = "Consolidatable";

std::string label(const api::Labels& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

std::string seconds(std::chrono::nanoseconds d) {
  return fmt::format("{}s", std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

// The price of the offering the node runs on (its type, zone and capacity type), or nullopt.
std::optional<double> offeringPrice(const TypesByPool& types, const ConsolidationCandidate& c) {
  auto pool = types.find(c.view->pool);
  if (pool == types.end()) {
    return std::nullopt;
  }
  for (const cloud::InstanceType& type : pool->second) {
    if (type.name != c.instanceType) {
      continue;
    }
    for (const cloud::Offering& offering : type.offerings) {
      if (offering.zone == c.zone && offering.capacityType == c.capacityType) {
        return offering.pricePerHour;
      }
    }
  }
  return std::nullopt;
}

// Pods waiting for a node the scheduler nominated: removing it would strand them.
std::set<std::string> nominatedNodes(const provisioning::ClusterCaches* caches) {
  std::set<std::string> out;
  if (caches == nullptr || caches->pods == nullptr) {
    return out;
  }
  for (const api::Object& object : caches->pods->list()) {
    const auto* pod = object.as<Pod>();
    if (pod != nullptr && pod->spec.nodeName.empty() && !pod->status.nominatedNodeName.empty()) {
      out.insert(pod->status.nominatedNodeName);
    }
  }
  return out;
}

// Since when the node has been as it is now (no pod scheduled to or removed from it), or why
// consolidateAfter has not passed. Nullopt: it has.
std::optional<std::string> underConsolidateAfter(const CandidateInput& input,
                                                 const ClaimView& claim, const NodePool& pool) {
  const auto& after = pool.spec.disruption.consolidateAfter;
  const auto wait = after ? after->value() : std::chrono::nanoseconds(0);
  if (const auto* condition =
          nodeclaim::findCondition(claim.claim->status.conditions, kConsolidatable);
      condition != nullptr) {
    if (condition->status == "True") {
      return std::nullopt;
    }
    return "not consolidatable yet: " + condition->message;
  }
  core::TimePoint since = claim.initializedAt;
  if (claim.claim->status.lastPodEventTime) {
    since = std::max(since, claim.claim->status.lastPodEventTime->point());
  } else if (input.lastPodSeen) {
    if (auto seen = input.lastPodSeen(claim.claim->metadata.name)) {
      since = std::max(since, *seen);
    }
  }
  if (input.now - since >= wait) {
    return std::nullopt;
  }
  return fmt::format("consolidateAfter {} has not passed since the last pod change {} ago",
                     after ? after->toString() : std::string("0s"), seconds(input.now - since));
}

// Why `claim` is no candidate, or "".
std::string excluded(const CandidateInput& input, const ClaimView& claim, const NodePool& pool,
                     const std::set<std::string>& nominated) {
  const ClusterView& view = *input.view;
  if (claim.command || claim.unreadableCommand || claim.deleting ||
      (!claim.replaces.empty() && view.claim(claim.replaces) != nullptr)) {
    return "already disrupting";
  }
  if (!claim.initialized || claim.node == nullptr) {
    return "not initialized";
  }
  if (api::karpenter::isStatic(pool)) {
    return fmt::format("NodePool \"{}\" is static", pool.metadata.name);
  }
  const auto& after = pool.spec.disruption.consolidateAfter;
  if (after && after->isNever()) {
    return fmt::format("NodePool \"{}\" has consolidation disabled", pool.metadata.name);
  }
  if (!claim.doNotDisrupt.empty()) {
    return claim.doNotDisrupt;
  }
  if (nominated.count(claim.node->metadata.name)) {
    return "nominated for pending pods";
  }
  if (input.pdbs != nullptr) {
    for (const Pod* pod : claim.pods) {
      if (std::string why = pdbBlocking(*pod, *input.pdbs); !why.empty()) {
        return why;
      }
    }
  }
  return "";
}

}  // namespace

bool keptByProtection(const Unconsolidatable& u) {
  return u.why.starts_with("pdb") || u.why.find("do-not-disrupt") != std::string::npos;
}

std::string consolidationPolicy(const NodePool& pool) {
  const std::string& policy = pool.spec.disruption.consolidationPolicy;
  return policy.empty() ? std::string(kPolicyWhenEmptyOrUnderutilized) : policy;
}

std::string pdbBlocking(const Pod& pod, const std::vector<PodDisruptionBudget>& pdbs) {
  const PodDisruptionBudget* covering = nullptr;
  for (const PodDisruptionBudget& pdb : pdbs) {
    // policy/v1: a budget without a selector selects no pods.
    if (pdb.metadata.namespace_ != pod.metadata.namespace_ || !pdb.spec.selector ||
        !api::matches(*pdb.spec.selector, pod.metadata.labels)) {
      continue;
    }
    const std::string name = pdb.metadata.namespace_ + "/" + pdb.metadata.name;
    if (covering != nullptr) {
      return fmt::format("pdbs {}/{} and {} both cover pod {}", covering->metadata.namespace_,
                         covering->metadata.name, name, provisioning::podKey(pod));
    }
    covering = &pdb;
    if (pdb.status.disruptionsAllowed <= 0) {
      return fmt::format("pdb {} prevents eviction of pod {}", name, provisioning::podKey(pod));
    }
  }
  return "";
}

ConsolidationCandidates findConsolidationCandidates(const CandidateInput& input) {
  ConsolidationCandidates out;
  const std::set<std::string> nominated = nominatedNodes(input.caches);
  for (const ClaimView& claim : input.view->claims()) {
    const NodePool* pool = input.view->pool(claim.pool);
    if (pool == nullptr) {
      continue;  // not Karpenter's to consolidate
    }
    const std::string& name = claim.claim->metadata.name;
    if (std::string why = excluded(input, claim, *pool, nominated); !why.empty()) {
      out.excluded.push_back({name, std::move(why)});
      continue;
    }
    ConsolidationCandidate candidate;
    candidate.view = &claim;
    candidate.pool = pool;
    candidate.instanceType = label(claim.node->metadata.labels, cloud::labels::kInstanceType);
    candidate.zone = label(claim.node->metadata.labels, cloud::labels::kZone);
    candidate.capacityType = label(claim.node->metadata.labels, cloud::labels::kCapacityType);
    auto price = input.types != nullptr ? offeringPrice(*input.types, candidate) : std::nullopt;
    if (!price) {
      // Upstream leaves such nodes to drift: a type no longer offered is not priced.
      out.excluded.push_back({name, fmt::format("no price for {} ({}, {})", candidate.instanceType,
                                                candidate.zone, candidate.capacityType)});
      continue;
    }
    candidate.price = *price;
    double rescheduling = 0;
    candidate.moveCost = 1.0;
    for (const Pod* pod : claim.pods) {
      const double cost = evictionCost(*pod);
      rescheduling += cost;
      candidate.moveCost += std::max(0.0, cost);
    }
    candidate.disruptionCost = rescheduling * lifetimeRemaining(*claim.claim, input.now);
    PoolTotals& totals = out.totals[claim.pool];
    totals.cost += candidate.price;
    totals.disruption += candidate.moveCost;
    if (auto why = underConsolidateAfter(input, claim, *pool)) {
      out.excluded.push_back({name, std::move(*why)});
      continue;
    }
    out.ready.push_back(std::move(candidate));
  }
  std::stable_sort(out.ready.begin(), out.ready.end(),
                   [](const ConsolidationCandidate& a, const ConsolidationCandidate& b) {
                     if (a.disruptionCost != b.disruptionCost) {
                       return a.disruptionCost < b.disruptionCost;
                     }
                     const auto at = a.view->claim->metadata.creationTimestamp.point();
                     const auto bt = b.view->claim->metadata.creationTimestamp.point();
                     if (at != bt) {
                       return at < bt;
                     }
                     return a.name() < b.name();
                   });
  return out;
}

}  // namespace nodewright::controllers::disruption
