#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "cloud/drift.h"
#include "controllers/provisioning/scheduling/requirements.h"

// The cloud-neutral drift checks of a NodeClaim against its NodePool (seed 002), before the
// cloud's node class checks: the template's static fields by hash, then whether the node's
// labels still satisfy the pool's requirements. Behavioral fields (weight, limits, disruption)
// take no part.
namespace nodewright::controllers::disruption {

// What the checks need of a pool, computed once per pool rather than per claim.
struct NodePoolDriftContext {
  const api::karpenter::NodePool* pool = nullptr;
  std::string hash;
  provisioning::scheduling::Requirements requirements;
  std::shared_ptr<cloud::DiffMemo> diffs = std::make_shared<cloud::DiffMemo>();
};

NodePoolDriftContext nodePoolContext(const api::karpenter::NodePool& pool,
                                     const api::karpenter::HashPolicy& policy);

// "NodePool" (NodePoolDrifted) and "Requirements" (RequirementsDrifted), both always present.
// A claim stamped under another hash version, or not stamped, does not drift by hash: the
// nodepool hash controller re-stamps it.
std::vector<cloud::DriftCheck> nodePoolDrift(const api::karpenter::NodeClaim& claim,
                                             const NodePoolDriftContext& context,
                                             const api::karpenter::HashPolicy& policy);

}  // namespace nodewright::controllers::disruption
