#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec.h"
#include "api/karpenter/decode.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodepool.h"
#include "api/scale.h"

// Static NodePools (spec.replicas): the field, and the rules Karpenter v1.14's CRD gives it
// (karpenter.sh_nodepools.yaml: replicas minimum 0; only limits.nodes and no weight with
// replicas; no transition between static and dynamic by update).
namespace nodewright::api::karpenter {
namespace {

using testing::decodeOne;
using testing::decodeValid;
using testing::errorStrings;

std::string pool(const std::string& extra) {
  return R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: static
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)" + extra;
}

const std::string kReplicas = "  replicas: 3\n";
const std::string kLimitsRule =
    "spec: Invalid value: \"object\": only 'limits.nodes' is supported on static NodePools";
const std::string kWeightRule =
    "spec: Invalid value: \"object\": 'weight' is not supported on static NodePools";
const std::string kTransitionRule =
    "spec: Invalid value: \"object\": Cannot transition NodePool between static (replicas set) "
    "and dynamic (replicas unset) provisioning modes";

TEST(StaticNodePool, ReplicasRoundTripsThroughJson) {
  NodePool decoded = decodeValid<NodePool>(pool(kReplicas));
  ASSERT_TRUE(decoded.spec.replicas.has_value());
  EXPECT_EQ(*decoded.spec.replicas, 3);
  EXPECT_TRUE(isStatic(decoded));
  const Json encoded = toJson(decoded);
  EXPECT_EQ(encoded["spec"]["replicas"], 3);

  NodePool zero = decodeValid<NodePool>(pool("  replicas: 0\n"));
  ASSERT_TRUE(zero.spec.replicas.has_value()) << "0 is a static pool with no nodes, not unset";
  EXPECT_EQ(toJson(zero)["spec"]["replicas"], 0);

  NodePool dynamic = decodeValid<NodePool>(pool(""));
  EXPECT_FALSE(isStatic(dynamic));
  EXPECT_FALSE(toJson(dynamic)["spec"].contains("replicas"));
}

TEST(StaticNodePool, NegativeReplicasAreRejectedAtTheField) {
  EXPECT_EQ(errorStrings(decodeOne(pool("  replicas: -1\n")).errors),
            std::vector<std::string>{
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0"});
}

TEST(StaticNodePool, OnlyTheNodesLimitIsAllowed) {
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  limits: {nodes: 10}\n")).errors),
            std::vector<std::string>{});
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  limits: {}\n")).errors),
            std::vector<std::string>{});
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  limits: {cpu: 10}\n")).errors),
            std::vector<std::string>{kLimitsRule});
  EXPECT_EQ(
      errorStrings(decodeOne(pool(kReplicas + "  limits: {nodes: 10, memory: 10Gi}\n")).errors),
      std::vector<std::string>{kLimitsRule});
  // A dynamic pool keeps every limit.
  EXPECT_EQ(errorStrings(decodeOne(pool("  limits: {cpu: 10, nodes: 3}\n")).errors),
            std::vector<std::string>{});
}

TEST(StaticNodePool, WeightIsNotSupported) {
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  weight: 10\n")).errors),
            std::vector<std::string>{kWeightRule});
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  weight: 10\n  limits: {cpu: 1}\n")).errors),
            (std::vector<std::string>{kLimitsRule, kWeightRule}));
  EXPECT_EQ(errorStrings(decodeOne(pool("  weight: 10\n")).errors), std::vector<std::string>{});
}

TEST(StaticNodePool, ConsolidationSettingsAreAcceptedAndIgnored) {
  // Upstream documents them as ignored when replicas is set, not forbidden.
  EXPECT_EQ(errorStrings(decodeOne(pool(kReplicas + "  disruption:\n    consolidationPolicy: "
                                                    "WhenEmpty\n    consolidateAfter: 1m\n"))
                             .errors),
            std::vector<std::string>{});
}

Json spec(const Json& fields) {
  return {{"spec", fields}};
}

TEST(StaticNodePool, UpdatesMayNotMoveBetweenStaticAndDynamic) {
  const Json dynamic = spec({{"limits", {{"cpu", "10"}}}});
  const Json static3 = spec({{"replicas", 3}});
  const Json static5 = spec({{"replicas", 5}});
  const Json static0 = spec({{"replicas", 0}});
  EXPECT_EQ(errorStrings(validateNodePoolUpdate(dynamic, static3)),
            std::vector<std::string>{kTransitionRule});
  EXPECT_EQ(errorStrings(validateNodePoolUpdate(static3, dynamic)),
            std::vector<std::string>{kTransitionRule});
  EXPECT_EQ(errorStrings(validateNodePoolUpdate(static3, spec(Json::object()))),
            std::vector<std::string>{kTransitionRule});
  EXPECT_TRUE(validateNodePoolUpdate(static3, static5).empty()) << "scaling is an update";
  EXPECT_TRUE(validateNodePoolUpdate(static5, static0).empty());
  EXPECT_TRUE(validateNodePoolUpdate(dynamic, spec({{"weight", 3}})).empty());
}

TEST(StaticNodePool, ReplicasNeverDriftNodes) {
  NodePool three = decodeValid<NodePool>(pool(kReplicas));
  NodePool five = three;
  five.spec.replicas = 5;
  EXPECT_EQ(nodePoolHash(three, defaultHashPolicy()), nodePoolHash(five, defaultHashPolicy()));
}

TEST(StaticNodePool, TheKindHasAScaleSubresourceOverReplicasAndNodes) {
  auto scale = scaleSubresource("karpenter.sh", "NodePool");
  ASSERT_TRUE(scale.has_value());
  EXPECT_EQ(scale->specReplicasPath, ".spec.replicas");
  EXPECT_EQ(scale->statusReplicasPath, ".status.nodes");
  EXPECT_EQ(scale->replicasIfUnset, 0);
  EXPECT_FALSE(scaleSubresource("karpenter.sh", "NodeClaim").has_value());
}

}  // namespace
}  // namespace nodewright::api::karpenter
