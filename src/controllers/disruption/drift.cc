#include "controllers/disruption/drift.h"

#include "api/karpenter/well_known.h"

namespace nodewright::controllers::disruption {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using provisioning::scheduling::Requirements;

NodePoolDriftContext nodePoolContext(const NodePool& pool,
                                     const api::karpenter::HashPolicy& policy) {
  NodePoolDriftContext context;
  context.pool = &pool;
  context.hash = api::karpenter::nodePoolHash(pool, policy);
  context.requirements = Requirements::fromApi(pool.spec.template_.spec.requirements);
  return context;
}

namespace {

// Karpenter's Compatible(nodeClaim labels, AllowUndefinedWellKnownLabels), from the pool's side:
// every requirement must admit the node's label, or its absence; a well-known label the node
// lacks (the cloud never set it) is not held against it.
cloud::DriftCheck requirementsDrift(const NodeClaim& claim, const Requirements& requirements) {
  cloud::DriftCheck check;
  check.name = "Requirements";
  for (const auto& [key, requirement] : requirements.entries()) {
    auto label = claim.metadata.labels.find(key);
    const bool present = label != claim.metadata.labels.end();
    const bool admitted =
        present ? requirement.has(label->second)
                : requirement.allowsAbsent() || provisioning::scheduling::isWellKnownLabel(key);
    if (admitted) {
      continue;
    }
    api::FieldDiff diff;
    diff.path = "spec.template.spec.requirements[" + key + "]";
    diff.from = present ? api::Json(label->second) : api::Json();
    diff.to = requirement.describe();
    check.changes.push_back(std::move(diff));
  }
  if (check.changes.empty()) {
    check.detail = "satisfied";
  } else {
    check.drifted = true;
    check.reason = "RequirementsDrifted";
    check.detail = "the node's labels no longer satisfy the NodePool's requirements";
  }
  return check;
}

}  // namespace

std::vector<cloud::DriftCheck> nodePoolDrift(const NodeClaim& claim,
                                             const NodePoolDriftContext& context,
                                             const api::karpenter::HashPolicy& policy) {
  static const cloud::StampedHash keys{api::karpenter::kNodePoolHashAnnotation,
                                       api::karpenter::kNodePoolHashVersionAnnotation,
                                       api::karpenter::kNodePoolStaticAnnotation};
  std::vector<cloud::DriftCheck> checks;
  checks.push_back(cloud::hashDrift("NodePool", "NodePoolDrifted", claim.metadata.annotations, keys,
                                    context.hash, context.pool->spec.template_, "spec.template",
                                    policy.version, context.diffs.get()));
  checks.push_back(requirementsDrift(claim, context.requirements));
  return checks;
}

}  // namespace nodewright::controllers::disruption
