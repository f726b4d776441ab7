#include "controllers/provisioning/scheduling/scheduler.h"

#include <gtest/gtest.h>

#include "controllers/provisioning/scheduling/fixture.h"

namespace nodewright::controllers::provisioning::scheduling::testing {
namespace {

std::vector<cloud::InstanceType> standardTypes() {
  return {instanceType("m5.large", 2, 8, 29, 0.096), instanceType("m5.xlarge", 4, 16, 58, 0.192),
          instanceType("c5.large", 2, 4, 29, 0.085)};
}

api::karpenter::Taint taint(const char* key, const char* value, const char* effect) {
  api::karpenter::Taint t;
  t.key = key;
  t.value = value;
  t.effect = effect;
  return t;
}

TEST_F(SchedulerTest, OffersEveryFittingTypeCheapestFirst) {
  addPool(nodePool("default"), standardTypes());
  addPod(pod("a", "1", "1Gi"));
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  const NewNodeClaim& c = r.newNodeClaims[0];
  EXPECT_EQ(c.nodePool, "default");
  EXPECT_EQ(c.instanceTypes, (std::vector<std::string>{"c5.large", "m5.large", "m5.xlarge"}));
  EXPECT_DOUBLE_EQ(c.cheapestPrice, 0.085 * 0.7);
  EXPECT_EQ(c.requests.at("cpu"), q("1"));
  EXPECT_EQ(c.requests.at("pods"), q("1"));
  EXPECT_EQ(c.requirements.back().key, "node.kubernetes.io/instance-type");
  EXPECT_EQ(c.requirements.back().values, c.instanceTypes);
  EXPECT_EQ(single(c, "karpenter.sh/nodepool"), "default");
}

TEST_F(SchedulerTest, PacksPodsOntoOneClaimUntilTheLargestTypeIsFull) {
  addPool(nodePool("default"), standardTypes());
  addPods(5, "p", "1", "1Gi");
  Results r = run();
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{4, 1}));
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes, (std::vector<std::string>{"m5.xlarge"}));
  EXPECT_TRUE(r.errors.empty());
}

TEST_F(SchedulerTest, PodsMustTolerateNodePoolTaints) {
  auto gpu = nodePool("gpu");
  gpu.spec.weight = 10;
  gpu.spec.template_.spec.taints.push_back(taint("dedicated", "gpu", "NoSchedule"));
  addPool(gpu, standardTypes());
  addPool(nodePool("general"), standardTypes());
  // Too big to share a node, so each gets its own claim.
  addPod(pod("plain", "3", "1Gi"));
  corev1::Pod& tolerant = addPod(pod("tolerant", "3", "1Gi"));
  corev1::Toleration t;
  t.key = "dedicated";
  t.operator_ = "Equal";
  t.value = "gpu";
  t.effect = "NoSchedule";
  tolerant.spec.tolerations.push_back(t);
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 2u);
  for (const auto& c : r.newNodeClaims) {
    ASSERT_EQ(c.pods.size(), 1u);
    EXPECT_EQ(c.nodePool, c.pods[0]->metadata.name == "tolerant" ? "gpu" : "general");
  }
}

TEST_F(SchedulerTest, UntoleratedTaintIsAnError) {
  auto gpu = nodePool("gpu");
  gpu.spec.template_.spec.taints.push_back(taint("dedicated", "gpu", "NoExecute"));
  addPool(gpu, standardTypes());
  addPod(pod("plain", "1", "1Gi"));
  Results r = run();
  EXPECT_TRUE(r.newNodeClaims.empty());
  EXPECT_EQ(r.errors.at("default/plain"),
            "incompatible with nodepool \"gpu\": did not tolerate the nodepool's taints");
}

TEST_F(SchedulerTest, PreferNoScheduleIsToleratedAsALastResort) {
  auto pool = nodePool("soft");
  pool.spec.template_.spec.taints.push_back(taint("dedicated", "x", "PreferNoSchedule"));
  pool.spec.template_.spec.startupTaints.push_back(taint("startup", "", "NoSchedule"));
  addPool(pool, standardTypes());
  addPod(pod("plain", "1", "1Gi"));
  Results r = run();
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{1}));
  EXPECT_TRUE(r.errors.empty());
}

TEST_F(SchedulerTest, RequiredNodeAffinityUsesTheFirstSatisfiableTerm) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& p = addPod(pod("a", "1", "1Gi"));
  corev1::NodeSelector sel;
  for (const char* zone : {"zone-x", "zone-c"}) {
    corev1::NodeSelectorTerm term;
    term.matchExpressions.push_back({kZone, "In", {zone}});
    sel.nodeSelectorTerms.push_back(term);
  }
  p.spec.affinity.emplace().nodeAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution =
      sel;
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(single(r.newNodeClaims[0], kZone), "zone-c");
}

TEST_F(SchedulerTest, NodeSelectorNarrowsTypesAndOfferings) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& p = addPod(pod("a", "1", "1Gi"));
  p.spec.nodeSelector = {{"karpenter.k8s.aws/instance-family", "m5"},
                         {"karpenter.sh/capacity-type", "on-demand"}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes, (std::vector<std::string>{"m5.large", "m5.xlarge"}));
  EXPECT_DOUBLE_EQ(r.newNodeClaims[0].cheapestPrice, 0.096);
}

// Karpenter v1.14 offers every type in both tenancies and no Linux type a Windows build: a pod
// asking for dedicated tenancy gets a claim that says so; one asking for a build gets none.
TEST_F(SchedulerTest, DedicatedTenancyIsOfferedAndAWindowsBuildIsNotOnLinuxTypes) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& dedicated = addPod(pod("a", "1", "1Gi"));
  dedicated.spec.nodeSelector = {{"karpenter.k8s.aws/instance-tenancy", "dedicated"}};
  corev1::Pod& windows = addPod(pod("b", "1", "1Gi"));
  windows.spec.nodeSelector = {{"node.kubernetes.io/windows-build", "10.0.20348"}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_TRUE(holds(r.newNodeClaims[0], "a"));
  EXPECT_EQ(single(r.newNodeClaims[0], "karpenter.k8s.aws/instance-tenancy"), "dedicated");
  EXPECT_FALSE(r.errors.at("default/b").empty());
}

TEST_F(SchedulerTest, CustomLabelOnlyFromAPoolThatDefinesIt) {
  addPool(nodePool("plain"), standardTypes());
  auto team = nodePool("team");
  team.spec.template_.metadata.labels = {{"team", "blue"}};
  addPool(team, standardTypes());
  corev1::Pod& p = addPod(pod("a", "1", "1Gi"));
  p.spec.nodeSelector = {{"team", "blue"}};
  corev1::Pod& other = addPod(pod("b", "1", "1Gi"));
  other.spec.nodeSelector = {{"team", "red"}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(r.newNodeClaims[0].nodePool, "team");
  EXPECT_TRUE(holds(r.newNodeClaims[0], "a"));
  EXPECT_EQ(r.errors.at("default/b"),
            "incompatible with nodepool \"plain\": label \"team\" does not have known values; "
            "incompatible with nodepool \"team\": key team, In [red] not in In [blue]");
}

TEST_F(SchedulerTest, PreferredNodeAffinityIsHonouredWhenPossible) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& p = addPod(pod("a", "1", "1Gi"));
  corev1::PreferredSchedulingTerm pref;
  pref.weight = 50;
  pref.preference.matchExpressions.push_back({kZone, "In", {"zone-b"}});
  p.spec.affinity.emplace()
      .nodeAffinity.emplace()
      .preferredDuringSchedulingIgnoredDuringExecution.push_back(pref);
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(single(r.newNodeClaims[0], kZone), "zone-b");
}

TEST_F(SchedulerTest, UnsatisfiablePreferenceIsRelaxed) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& p = addPod(pod("a", "1", "1Gi"));
  corev1::PreferredSchedulingTerm pref;
  pref.weight = 50;
  pref.preference.matchExpressions.push_back({"kubernetes.io/arch", "In", {"arm64"}});
  p.spec.affinity.emplace()
      .nodeAffinity.emplace()
      .preferredDuringSchedulingIgnoredDuringExecution.push_back(pref);
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes.size(), 3u);
}

TEST_F(SchedulerTest, HeavierNodePoolIsTriedFirst) {
  auto low = nodePool("low");
  low.spec.weight = 1;
  auto high = nodePool("high");
  high.spec.weight = 50;
  addPool(low, standardTypes());
  addPool(high, standardTypes());
  addPod(pod("a", "1", "1Gi"));
  corev1::Pod& pinned = addPod(pod("b", "4", "1Gi"));
  pinned.spec.nodeSelector = {{"karpenter.sh/nodepool", "low"}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 2u);
  for (const auto& c : r.newNodeClaims) {
    EXPECT_EQ(c.nodePool, holds(c, "b") ? "low" : "high");
  }
}

TEST_F(SchedulerTest, MinValuesKeepsEnoughFamilies) {
  auto pool = nodePool("default");
  auto req = requirement("karpenter.k8s.aws/instance-family", "In", {"m5", "c5"});
  req.minValues = 2;
  pool.spec.template_.spec.requirements.push_back(req);
  addPool(pool, standardTypes());
  // Two 1-cpu pods still fit c5.large and m5.large; a third would leave only m5.xlarge.
  addPods(3, "p", "1", "1Gi");
  addPod(pod("big", "3", "1Gi"));
  Results r = run();
  EXPECT_EQ(r.errors.at("default/big"),
            "incompatible with nodepool \"default\": minValues requirement is not met for "
            "\"karpenter.k8s.aws/instance-family\"");
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{2, 1}));
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes.size(), 3u);
}

TEST_F(SchedulerTest, LimitsBlockLaunchesBeyondThem) {
  auto pool = nodePool("limited");
  pool.spec.limits = {{"cpu", q("4")}};
  addPool(pool,
          {instanceType("m5.large", 2, 8, 29, 0.096), instanceType("m5.xlarge", 4, 16, 58, 0.192)});
  addPods(3, "p", "1500m", "1Gi");
  Results r = run();
  // The first claim may become an m5.xlarge, which is the whole limit.
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{2}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors.begin()->second,
            "incompatible with nodepool \"limited\": all available instance types exceed limits "
            "for nodepool: \"limited\"");
}

TEST_F(SchedulerTest, LimitsCountWhatThePoolAlreadyRuns) {
  auto pool = nodePool("limited");
  pool.spec.limits = {{"cpu", q("10")}};
  addPool(pool,
          {instanceType("m5.large", 2, 8, 29, 0.096), instanceType("m5.xlarge", 4, 16, 58, 0.192)});
  inUse_["limited"] = {{"cpu", q("7")}};
  addPod(pod("a", "1", "1Gi"));
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes, (std::vector<std::string>{"m5.large"}));
}

TEST_F(SchedulerTest, DaemonSetOverheadRulesOutTypesTooSmallForBoth) {
  addPool(nodePool("default"), standardTypes());
  addDaemonSet(pod("logging", "100m", "1Gi"));
  corev1::Pod& gpuOnly = addDaemonSet(pod("gpu-plugin", "1", "8Gi"));
  gpuOnly.spec.nodeSelector = {{"karpenter.sh/nodepool", "gpu"}};
  corev1::Pod& team = addDaemonSet(pod("team-agent", "1", "8Gi"));
  team.spec.nodeSelector = {{"team", "x"}};
  // Fits c5.large (4Gi) alone, not with the logging DaemonSet pod.
  addPod(pod("a", "1", "3500Mi"));
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(r.newNodeClaims[0].instanceTypes, (std::vector<std::string>{"m5.large", "m5.xlarge"}));
  EXPECT_EQ(r.newNodeClaims[0].requests.at("memory"), q("4524Mi"));
  EXPECT_EQ(r.newNodeClaims[0].requests.at("pods"), q("2"));
}

TEST_F(SchedulerTest, MaxPodsCapsPodsPerNode) {
  addPool(nodePool("default"), {instanceType("tiny.large", 4, 16, 3, 0.1)});
  addPods(7, "p", "100m", "100Mi");
  Results r = run();
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{3, 3, 1}));
}

TEST_F(SchedulerTest, EfaRequestsOnlyTypesWithEfa) {
  cloud::InstanceType p4d = instanceType("p4d.24xlarge", 96, 1152, 737, 32.77);
  p4d.capacity["vpc.amazonaws.com/efa"] = q("4");
  addPool(nodePool("default"), {instanceType("m5.xlarge", 4, 16, 58, 0.192), p4d});
  corev1::Pod& efa = addPod(pod("efa", "1", "1Gi"));
  efa.spec.containers[0].resources.requests["vpc.amazonaws.com/efa"] = q("1");
  // Pinned to m5, so its claim cannot take the EFA pod.
  corev1::Pod& plain = addPod(pod("plain", "3", "1Gi"));
  plain.spec.nodeSelector = {{"karpenter.k8s.aws/instance-family", "m5"}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 2u);
  for (const auto& c : r.newNodeClaims) {
    ASSERT_EQ(c.pods.size(), 1u) << c.instanceTypes[0];
    if (holds(c, "efa")) {
      EXPECT_EQ(c.instanceTypes, (std::vector<std::string>{"p4d.24xlarge"}));
      EXPECT_EQ(c.requests.at("vpc.amazonaws.com/efa"), q("1"));
    } else {
      EXPECT_EQ(c.instanceTypes, (std::vector<std::string>{"m5.xlarge"}));
    }
  }
}

TEST_F(SchedulerTest, InitContainersAndSidecarsCountAsKubeSchedulerDoes) {
  addPool(nodePool("default"), standardTypes());
  corev1::Pod& p = addPod(pod("a", "500m", "1Gi"));
  corev1::Container init;
  init.name = "init";
  init.resources.requests = {{"cpu", q("1500m")}};
  corev1::Container sidecar;
  sidecar.name = "proxy";
  sidecar.restartPolicy = "Always";
  sidecar.resources.requests = {{"cpu", q("250m")}};
  p.spec.initContainers = {sidecar, init};
  p.spec.overhead = {{"cpu", q("100m")}};
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  // max(500m + 250m, 1500m + 250m) + 100m overhead.
  EXPECT_EQ(r.newNodeClaims[0].requests.at("cpu"), q("1850m"));
}

}  // namespace
}  // namespace nodewright::controllers::provisioning::scheduling::testing
