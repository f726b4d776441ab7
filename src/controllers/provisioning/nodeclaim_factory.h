#pragma once

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "controllers/provisioning/scheduling/scheduler.h"

// Turns a NodeClaim the scheduler planned into the object the API server stores, from its
// NodePool's template, as Karpenter's NodeClaimTemplate does: the template's labels plus every
// single-valued requirement as labels, the template's taints, startup taints, node class,
// expiry and termination grace, the planned requirements (instance types included) and
// requests, and the NodePool as owner (deleting a NodePool deletes its NodeClaims). It is
// stamped with the template's drift hash under `policy` (api/karpenter/hashing.h).
namespace nodewright::controllers::provisioning {

api::karpenter::NodeClaim makeNodeClaim(const api::karpenter::NodePool& pool,
                                        const scheduling::NewNodeClaim& planned,
                                        const api::karpenter::HashPolicy& policy);

// A NodeClaim of a static NodePool: the template alone (its requirements, no requests), as
// Karpenter's static provisioning creates them; the cloud picks the cheapest type they allow.
api::karpenter::NodeClaim makeStaticNodeClaim(const api::karpenter::NodePool& pool,
                                              const api::karpenter::HashPolicy& policy);

}  // namespace nodewright::controllers::provisioning
