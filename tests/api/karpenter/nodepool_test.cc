#include "api/karpenter/nodepool.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/karpenter/decode.h"

namespace nodewright::api::karpenter {
namespace {

using testing::decodeValid;

// The general-purpose NodePool of the Karpenter v1 documentation, with every field set.
constexpr std::string_view kDocsNodePool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels:
        billing-team: my-team
        node.kubernetes.io/role: worker
      annotations:
        example.com/owner: "my-team"
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      taints:
        - key: example.com/special-taint
          value: "true"
          effect: NoSchedule
      startupTaints:
        - key: example.com/another-taint
          effect: NoSchedule
      expireAfter: 720h
      terminationGracePeriod: 48h
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
          minValues: 2
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["m5", "m5d", "c5", "c5d", "c4", "r4"]
          minValues: 5
        - key: karpenter.k8s.aws/instance-cpu
          operator: In
          values: ["4", "8", "16", "32"]
        - key: karpenter.k8s.aws/instance-hypervisor
          operator: In
          values: ["nitro"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["2"]
        - key: karpenter.k8s.aws/instance-memory
          operator: Lte
          values: ["131072"]
        - key: topology.kubernetes.io/zone
          operator: In
          values: ["us-west-2a", "us-west-2b"]
        - key: kubernetes.io/arch
          operator: In
          values: ["arm64", "amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
        - key: example.com/gpu
          operator: DoesNotExist
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
      - nodes: 10%
      - schedule: "0 9 * * mon-fri"
        duration: 8h
        nodes: "0"
        reasons: [Drifted, Underutilized]
      - schedule: "@daily"
        duration: 10m
        nodes: "5"
  limits:
    cpu: "1000"
    memory: 1000Gi
  weight: 10
status:
  resources:
    cpu: "16"
    memory: 64Gi
  nodes: 4
  conditions:
    - type: Ready
      status: "True"
      reason: Ready
      lastTransitionTime: "2024-08-01T10:00:00Z"
    - type: NodeClassReady
      status: "True"
      reason: NodeClassReady
      lastTransitionTime: "2024-08-01T10:00:00Z"
)";

constexpr std::string_view kMinimalNodePool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: minimal
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";

TEST(NodePoolDecodeTest, AcceptsTheDocumentedNodePoolWithEveryField) {
  NodePool pool = decodeValid<NodePool>(kDocsNodePool);
  const NodeClaimTemplateSpec& t = pool.spec.template_.spec;
  ASSERT_EQ(t.requirements.size(), 10u);
  EXPECT_EQ(t.requirements[0].operator_, "In");
  EXPECT_EQ(t.requirements[0].minValues, 2);
  EXPECT_EQ(t.requirements[4].operator_, "Gt");
  EXPECT_EQ(t.nodeClassRef.kind, "EC2NodeClass");
  EXPECT_EQ(t.terminationGracePeriod->toString(), "48h0m0s");
  EXPECT_EQ(pool.spec.limits.at("memory").toString(), "1000Gi");
  EXPECT_EQ(pool.spec.weight, 10);
  ASSERT_EQ(pool.spec.disruption.budgets.size(), 3u);
  EXPECT_EQ(pool.spec.disruption.budgets[1].schedule, "0 9 * * mon-fri");
  EXPECT_EQ(pool.spec.disruption.budgets[1].duration->toString(), "8h0m0s");
  EXPECT_EQ(pool.status.nodes, 4);
}

TEST(NodePoolDefaultsTest, FillsUpstreamDefaults) {
  NodePool pool = decodeValid<NodePool>(kMinimalNodePool);
  const Disruption& d = pool.spec.disruption;
  EXPECT_EQ(d.consolidationPolicy, "WhenEmptyOrUnderutilized");
  ASSERT_TRUE(d.consolidateAfter.has_value());
  EXPECT_EQ(d.consolidateAfter->toString(), "0s");
  ASSERT_EQ(d.budgets.size(), 1u);
  EXPECT_EQ(d.budgets[0].nodes, "10%");
  EXPECT_TRUE(d.budgets[0].schedule.empty());
  ASSERT_TRUE(pool.spec.template_.spec.expireAfter.has_value());
  EXPECT_EQ(pool.spec.template_.spec.expireAfter->toString(), "720h0m0s");
  EXPECT_FALSE(pool.spec.template_.spec.terminationGracePeriod.has_value());
  EXPECT_FALSE(pool.spec.weight.has_value());
}

TEST(NodePoolDefaultsTest, KeepsExplicitNeverAndFillsBudgetNodes) {
  NodePool pool = decodeValid<NodePool>(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: never}
spec:
  template:
    spec:
      expireAfter: Never
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    budgets:
      - {schedule: "@hourly", duration: 5m}
)");
  EXPECT_TRUE(pool.spec.template_.spec.expireAfter->isNever());
  EXPECT_TRUE(pool.spec.disruption.consolidateAfter->isNever());
  EXPECT_EQ(pool.spec.disruption.budgets[0].nodes, "10%");
}

TEST(NodePoolCodecTest, RoundTripsThroughJson) {
  NodePool pool = decodeValid<NodePool>(kDocsNodePool);
  Json encoded = toJson(pool);
  NodePool again;
  ASSERT_EQ(decodeJson(encoded, again), FieldErrors{});
  EXPECT_EQ(toJson(again), encoded);
  EXPECT_EQ(encoded["spec"]["template"]["spec"]["requirements"][0]["operator"], "In");
}

TEST(NodePoolHashTest, IgnoresBehavioralFieldsAndSetOrder) {
  NodePool pool = decodeValid<NodePool>(kDocsNodePool);
  const uint64_t base = hashOf(pool.spec);

  NodePool behavioral = pool;
  behavioral.spec.weight = 50;
  behavioral.spec.limits["cpu"] = core::Quantity::fromInt(5);
  behavioral.spec.disruption.consolidateAfter = core::Duration::never();
  EXPECT_EQ(hashOf(behavioral.spec), base);

  // Karpenter v1 drifts nodes on expireAfter and terminationGracePeriod.
  NodePool expiring = pool;
  expiring.spec.template_.spec.expireAfter = core::Duration(std::chrono::hours(1));
  EXPECT_NE(hashOf(expiring.spec), base);
  NodePool graceful = pool;
  graceful.spec.template_.spec.terminationGracePeriod = std::nullopt;
  EXPECT_NE(hashOf(graceful.spec), base);

  NodePool reordered = pool;
  std::swap(reordered.spec.template_.spec.requirements[0],
            reordered.spec.template_.spec.requirements[1]);
  reordered.spec.template_.spec.requirements.pop_back();  // dynamic: drifts by compatibility
  EXPECT_EQ(hashOf(reordered.spec), base);

  NodePool tainted = pool;
  tainted.spec.template_.spec.taints[0].value = "false";
  EXPECT_NE(hashOf(tainted.spec), base);

  NodePool relabelled = pool;
  relabelled.spec.template_.metadata.labels["billing-team"] = "other";
  EXPECT_NE(hashOf(relabelled.spec), base);
}

TEST(NodePoolHashTest, TaintsHashAsASet) {
  NodePool a = decodeValid<NodePool>(kMinimalNodePool);
  a.spec.template_.spec.taints = {{"a", "1", "NoSchedule", std::nullopt},
                                  {"b", "", "NoExecute", std::nullopt}};
  NodePool b = a;
  std::swap(b.spec.template_.spec.taints[0], b.spec.template_.spec.taints[1]);
  EXPECT_EQ(hashOf(a.spec), hashOf(b.spec));
}

}  // namespace
}  // namespace nodewright::api::karpenter
