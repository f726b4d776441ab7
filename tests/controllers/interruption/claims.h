#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "api/karpenter/nodeclaim.h"
#include "kube/client.h"

// The NodeClaims the interruption tests act on: launched on `providerID`, held by the
// termination finalizer as the lifecycle controller holds every launched claim, so deleting one
// starts the termination path and leaves it visible with a deletion timestamp.
namespace nodewright::controllers::interruption::testing {

inline void storeLaunchedClaim(kube::Typed<api::karpenter::NodeClaim>& claims,
                               const std::string& name, const std::string& providerID,
                               std::map<std::string, std::string> labels) {
  api::karpenter::NodeClaim claim;
  claim.apiVersion = "karpenter.sh/v1";
  claim.kind = "NodeClaim";
  claim.metadata.name = name;
  claim.metadata.finalizers = {"karpenter.sh/termination"};
  claim.metadata.labels = std::move(labels);
  claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  auto created = claims.create(claim);
  ASSERT_TRUE(created) << created.error().describe();
  created->status.providerID = providerID;
  auto updated = claims.updateStatus(*created);
  ASSERT_TRUE(updated) << updated.error().describe();
}

}  // namespace nodewright::controllers::interruption::testing
