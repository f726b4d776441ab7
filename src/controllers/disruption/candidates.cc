#include "controllers/disruption/candidates.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/karpenter/well_known.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/pending_pods.h"
#include "kube/client.h"

namespace nodewright::controllers::disruption {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using nodeclaim::findCondition;

bool annotated(const std::map<std::string, std::string>& annotations) {
  auto it = annotations.find(api::karpenter::kDoNotDisruptAnnotation);
  return it != annotations.end() && it->second == "true";
}

bool nodeReady(const Node& node) {
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") {
      return c.status == "True";
    }
  }
  return false;
}

std::string minutes(std::chrono::nanoseconds d) {
  return fmt::format("{}m", std::chrono::duration_cast<std::chrono::minutes>(d).count());
}

int priority(const std::string& reason) {
  if (reason == kReasonEmpty) {
    return 0;
  }
  return reason == kReasonDrifted ? 1 : 2;
}

}  // namespace

ClusterView::ClusterView(const provisioning::ClusterCaches& caches) {
  for (api::Object& object : caches.nodePools->list()) {
    if (const auto* pool = object.as<NodePool>(); pool && !pool->metadata.deletionTimestamp) {
      pools_[pool->metadata.name] = pool;
      keep_.push_back(std::move(object));
    }
  }
  for (const api::Object& object : caches.pods->list()) {
    const auto* pod = object.as<Pod>();
    if (pod != nullptr && pod->spec.nodeName.empty() && provisioning::isReschedulable(*pod)) {
      ++unboundPods_;
    }
  }
  std::map<std::string, const Node*> nodesByProvider;
  for (api::Object& object : caches.nodes->list()) {
    if (const auto* node = object.as<Node>(); node && !node->spec.providerID.empty()) {
      nodesByProvider[node->spec.providerID] = node;
      keep_.push_back(std::move(object));
    }
  }
  for (api::Object& object : caches.nodeClaims->list()) {
    const auto* claim = object.as<NodeClaim>();
    if (claim == nullptr) {
      continue;
    }
    ClaimView view;
    view.claim = claim;
    const auto& labels = claim->metadata.labels;
    const auto& annotations = claim->metadata.annotations;
    if (auto it = labels.find(api::karpenter::kNodePoolLabel); it != labels.end()) {
      view.pool = it->second;
    }
    if (auto it = annotations.find(api::karpenter::kDisruptionAnnotation);
        it != annotations.end()) {
      // An unreadable record is no command: the claim is left alone rather than guessed at.
      if (auto command = decodeCommand(it->second)) {
        view.command = std::move(*command);
      } else {
        view.unreadableCommand = true;
      }
    }
    if (auto it = annotations.find(api::karpenter::kReplacesAnnotation); it != annotations.end()) {
      view.replaces = it->second;
    }
    view.deleting = claim->metadata.deletionTimestamp.has_value();
    if (const auto* initialized =
            findCondition(claim->status.conditions, api::karpenter::kInitialized);
        initialized != nullptr && initialized->status == "True") {
      view.initialized = true;
      view.initializedAt = initialized->lastTransitionTime.point();
    }
    if (annotated(annotations)) {
      view.doNotDisrupt = "nodeclaim " + claim->metadata.name + " is annotated do-not-disrupt";
    }
    if (auto node = nodesByProvider.find(claim->status.providerID);
        !claim->status.providerID.empty() && node != nodesByProvider.end()) {
      view.node = node->second;
      view.ready = nodeReady(*node->second);
      if (view.doNotDisrupt.empty() && annotated(node->second->metadata.annotations)) {
        view.doNotDisrupt = "node " + node->second->metadata.name + " is annotated do-not-disrupt";
      }
      for (api::Object& podObject :
           caches.pods->byIndex(kube::kByNodeName, node->second->metadata.name)) {
        const auto* pod = podObject.as<Pod>();
        if (pod == nullptr || !provisioning::isReschedulable(*pod)) {
          continue;
        }
        view.pods.push_back(pod);
        if (view.doNotDisrupt.empty() && annotated(pod->metadata.annotations)) {
          view.doNotDisrupt = "pod " + provisioning::podKey(*pod) + " is annotated do-not-disrupt";
        }
        keep_.push_back(std::move(podObject));
      }
    }
    byName_[claim->metadata.name] = claims_.size();
    claims_.push_back(std::move(view));
    keep_.push_back(std::move(object));
  }
}

const ClaimView* ClusterView::claim(const std::string& name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : &claims_[it->second];
}

const NodePool* ClusterView::pool(const std::string& name) const {
  auto it = pools_.find(name);
  return it == pools_.end() ? nullptr : it->second;
}

namespace {

// Why `view` should go, if it should: drifted, expired, or empty long enough.
std::optional<Candidate> reasonFor(const ClusterView& view, const ClaimView& claim,
                                   const NodePool& pool, core::TimePoint now,
                                   const LastPodSeen& lastPodSeen) {
  Candidate candidate;
  candidate.view = &claim;
  const auto& spec = claim.claim->spec;
  if (spec.expireAfter && !spec.expireAfter->isNever()) {
    const auto expiry = claim.claim->metadata.creationTimestamp.point() + spec.expireAfter->value();
    if (now >= expiry) {
      candidate.reason = kReasonExpired;
      candidate.why = fmt::format("expired {} ago (expireAfter {})", minutes(now - expiry),
                                  spec.expireAfter->toString());
    }
  }
  if (const auto* drifted = findCondition(claim.claim->status.conditions, api::karpenter::kDrifted);
      drifted != nullptr && drifted->status == "True") {
    candidate.reason = kReasonDrifted;
    candidate.why = drifted->reason + ": " + drifted->message;
  }
  const auto& disruption = pool.spec.disruption;
  // A static pool keeps its nodes empty or not: consolidation settings are ignored there.
  const bool consolidates =
      !api::karpenter::isStatic(pool) && !disruption.consolidationPolicy.empty() &&
      !(disruption.consolidateAfter && disruption.consolidateAfter->isNever());
  if (consolidates && claim.pods.empty() && claim.replaces.empty() && view.unboundPods() == 0) {
    core::TimePoint since = claim.initializedAt + kEmptyGrace;
    if (auto seen = lastPodSeen(claim.claim->metadata.name); seen && *seen > since) {
      since = *seen;
    }
    const auto after = disruption.consolidateAfter ? disruption.consolidateAfter->value()
                                                   : std::chrono::nanoseconds(0);
    if (now >= since && now - since >= after) {
      candidate.reason = kReasonEmpty;
      candidate.why =
          fmt::format("empty for {} (consolidateAfter {})", minutes(now - since),
                      disruption.consolidateAfter ? disruption.consolidateAfter->toString()
                                                  : std::string("0s"));
    }
  }
  if (candidate.reason.empty()) {
    return std::nullopt;
  }
  return candidate;
}

}  // namespace

Candidates findCandidates(const ClusterView& view, core::TimePoint now,
                          const LastPodSeen& lastPodSeen) {
  Candidates out;
  for (const ClaimView& claim : view.claims()) {
    const NodePool* pool = view.pool(claim.pool);
    if (pool == nullptr || claim.command || claim.unreadableCommand || claim.deleting ||
        !claim.initialized || claim.node == nullptr) {
      continue;
    }
    // A replacement whose command is still in flight is spoken for.
    if (!claim.replaces.empty() && view.claim(claim.replaces) != nullptr) {
      continue;
    }
    auto candidate = reasonFor(view, claim, *pool, now, lastPodSeen);
    if (!candidate) {
      continue;
    }
    if (!claim.doNotDisrupt.empty() && candidate->reason != kReasonExpired) {
      out.blocked.emplace_back(*candidate, claim.doNotDisrupt);
      continue;
    }
    out.ready.push_back(*candidate);
  }
  std::stable_sort(out.ready.begin(), out.ready.end(), [](const Candidate& a, const Candidate& b) {
    if (priority(a.reason) != priority(b.reason)) {
      return priority(a.reason) < priority(b.reason);
    }
    return a.view->claim->metadata.creationTimestamp.point() <
           b.view->claim->metadata.creationTimestamp.point();
  });
  return out;
}

provisioning::DisruptionScope disruptionScope(const ClusterView& view, const ClaimView& claim) {
  provisioning::DisruptionScope scope;
  if (claim.node != nullptr) {
    scope.nodes.insert(claim.node->metadata.name);
  }
  for (const ClaimView& other : view.claims()) {
    if (other.command && other.claim != claim.claim && other.node != nullptr) {
      scope.excludedNodes.insert(other.node->metadata.name);
    }
  }
  return scope;
}

core::Result<PoolBudget> poolBudget(const ClusterView& view, const std::string& pool,
                                    std::string_view reason, core::TimePoint now) {
  const NodePool* nodePool = view.pool(pool);
  if (nodePool == nullptr) {
    return core::fail(core::Error::notFound("nodepool " + pool));
  }
  PoolBudget budget;
  for (const ClaimView& claim : view.claims()) {
    if (claim.pool != pool) {
      continue;
    }
    if (!claim.replaces.empty()) {
      const ClaimView* replaced = view.claim(claim.replaces);
      if (replaced != nullptr && replaced->command) {
        continue;
      }
    }
    ++budget.nodes;
    if (claim.deleting || claim.command || claim.unreadableCommand || !claim.initialized ||
        !claim.ready) {
      ++budget.disrupting;
    }
  }
  auto verdict = allowedDisruptions(nodePool->spec.disruption, reason, budget.nodes, now);
  if (!verdict) {
    return core::fail(verdict.error());
  }
  budget.verdict = std::move(*verdict);
  return budget;
}

}  // namespace nodewright::controllers::disruption
