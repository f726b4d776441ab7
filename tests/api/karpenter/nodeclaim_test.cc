#include "api/karpenter/nodeclaim.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/karpenter/decode.h"

namespace nodewright::api::karpenter {
namespace {

using testing::decodeValid;

// A NodeClaim as Karpenter writes it for a launched node.
constexpr std::string_view kLaunchedNodeClaim = R"(
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-x7k2p
  labels:
    karpenter.sh/nodepool: default
    node.kubernetes.io/instance-type: m5.large
  annotations:
    karpenter.sh/nodepool-hash: "6821555240594823858"
    karpenter.sh/nodepool-hash-version: v3
spec:
  expireAfter: 720h
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements:
    - {key: karpenter.sh/nodepool, operator: In, values: [default]}
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
    - {key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 2}
  resources:
    requests: {cpu: 1500m, memory: 2Gi, pods: "5"}
  startupTaints:
    - {key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}
status:
  nodeName: ip-192-168-71-87.us-west-2.compute.internal
  providerID: aws:///us-west-2b/i-053c6b324e29d2275
  imageID: ami-0ccbbed159cce4e37
  capacity: {cpu: "2", memory: 7910096Ki, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7179696Ki, pods: "29"}
  lastPodEventTime: "2024-08-01T10:05:00Z"
  conditions:
    - {type: Launched, status: "True", reason: Launched, lastTransitionTime: "2024-08-01T10:00:00Z"}
    - {type: Registered, status: "True", reason: Registered, lastTransitionTime: "2024-08-01T10:01:00Z"}
    - {type: Ready, status: "True", reason: Ready, lastTransitionTime: "2024-08-01T10:02:00Z"}
)";

TEST(NodeClaimDecodeTest, AcceptsALaunchedNodeClaimWithTheNodePoolRequirement) {
  NodeClaim claim = decodeValid<NodeClaim>(kLaunchedNodeClaim);
  EXPECT_EQ(claim.spec.requirements[0].key, "karpenter.sh/nodepool");
  EXPECT_EQ(claim.spec.resources.requests.at("cpu").toString(), "1500m");
  EXPECT_EQ(claim.status.allocatable.at("memory").toString(), "7179696Ki");
  EXPECT_EQ(claim.status.conditions.size(), 3u);
  EXPECT_FALSE(claim.spec.terminationGracePeriod.has_value());
}

TEST(NodeClaimCodecTest, RoundTripsThroughJson) {
  NodeClaim claim = decodeValid<NodeClaim>(kLaunchedNodeClaim);
  Json encoded = toJson(claim);
  NodeClaim again;
  ASSERT_EQ(decodeJson(encoded, again), FieldErrors{});
  EXPECT_EQ(toJson(again), encoded);
}

TEST(NodeClaimValidationTest, RejectsRepeatedConditionTypes) {
  NodeClaim claim = decodeValid<NodeClaim>(kLaunchedNodeClaim);
  claim.status.conditions.push_back(claim.status.conditions[0]);
  FieldErrors errors = validateValue(claim);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].toString(), R"(status.conditions[3].type: Duplicate value: "Launched")");
}

}  // namespace
}  // namespace nodewright::api::karpenter
