#include <map>

#include <gtest/gtest.h>

#include "controllers/provisioning/scheduling/fixture.h"
#include "controllers/provisioning/scheduling/scheduler.h"

namespace nodewright::controllers::provisioning::scheduling::testing {
namespace {

std::vector<cloud::InstanceType> xlargeOnly() {
  return {instanceType("m5.xlarge", 4, 16, 58, 0.192)};
}

std::map<std::string, size_t> podsPerZone(const Results& r) {
  std::map<std::string, size_t> out;
  for (const auto& c : r.newNodeClaims) {
    out[SchedulerTest::single(c, kZone)] += c.pods.size();
  }
  return out;
}

ExistingNode node(const std::string& name, const std::string& zone, const char* cpu) {
  ExistingNode n;
  n.name = name;
  n.labels = {{kZone, zone}, {kHostname, name}, {"kubernetes.io/arch", "amd64"}};
  n.allocatable = {{"cpu", q(cpu)}, {"memory", q("16Gi")}, {"pods", q("110")}};
  return n;
}

TEST_F(SchedulerTest, ZoneSpreadBalancesExactly) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 7; ++i) {
    addPod(pod("web-" + std::to_string(i), "1", "1Gi", {{"app", "web"}}))
        .spec.topologySpreadConstraints.push_back(spread(kZone, 1, "web"));
  }
  Results r = run();
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(podsPerZone(r),
            (std::map<std::string, size_t>{{"zone-a", 3}, {"zone-b", 2}, {"zone-c", 2}}));
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{3, 2, 2}));
}

TEST_F(SchedulerTest, ZoneSpreadCountsPodsOnExistingNodes) {
  addPool(nodePool("default"), xlargeOnly());
  nodes_.push_back(node("full-a", "zone-a", "0"));
  corev1::Pod existing = pod("old", "1", "1Gi", {{"app", "web"}});
  corev1::Pod existing2 = pod("old2", "1", "1Gi", {{"app", "web"}});
  nodes_.back().pods = {&existing, &existing2};
  for (int i = 0; i < 4; ++i) {
    addPod(pod("web-" + std::to_string(i), "1", "1Gi", {{"app", "web"}}))
        .spec.topologySpreadConstraints.push_back(spread(kZone, 1, "web"));
  }
  Results r = run();
  EXPECT_TRUE(r.errors.empty());
  // zone-a has 2 already: the four new pods go 2 + 2 to b and c.
  EXPECT_EQ(podsPerZone(r), (std::map<std::string, size_t>{{"zone-b", 2}, {"zone-c", 2}}));
}

TEST_F(SchedulerTest, HostnameSpreadMaxSkewBoundsPodsPerNode) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 5; ++i) {
    addPod(pod("w-" + std::to_string(i), "500m", "1Gi", {{"app", "w"}}))
        .spec.topologySpreadConstraints.push_back(spread(kHostname, 2, "w"));
  }
  Results r = run();
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{2, 2, 1}));
}

TEST_F(SchedulerTest, ScheduleAnywaySpreadIsTreatedAsRequiredWhileItCanBe) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 3; ++i) {
    addPod(pod("w-" + std::to_string(i), "500m", "1Gi", {{"app", "w"}}))
        .spec.topologySpreadConstraints.push_back(spread(kHostname, 1, "w", "ScheduleAnyway"));
  }
  Results r = run();
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{1, 1, 1}));
}

TEST_F(SchedulerTest, ZoneSpreadCountsOnlyDomainsThePodCanUse) {
  addPool(nodePool("default"), xlargeOnly());
  nodes_.push_back(node("busy-a", "zone-a", "0"));
  std::vector<corev1::Pod> existing;
  for (int i = 0; i < 3; ++i) {
    existing.push_back(pod("old" + std::to_string(i), "1", "1Gi", {{"app", "w"}}));
  }
  for (auto& p : existing) {
    nodes_.back().pods.push_back(&p);
  }
  corev1::Pod& p = addPod(pod("w", "1", "1Gi", {{"app", "w"}}));
  p.spec.topologySpreadConstraints.push_back(spread(kZone, 1, "w", "ScheduleAnyway"));
  p.spec.nodeSelector = {{kZone, "zone-a"}};
  // nodeAffinityPolicy Honor: only zone-a counts, so the skew is satisfiable.
  Results r = run();
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(podsPerZone(r), (std::map<std::string, size_t>{{"zone-a", 1}}));
}

TEST_F(SchedulerTest, PodAffinityFollowsTheTargetOntoItsNode) {
  addPool(nodePool("default"), {instanceType("m5.4xlarge", 16, 64, 234, 0.768)});
  // The followers sort first, fail, and are retried once the database is placed.
  for (int i = 0; i < 2; ++i) {
    addPod(pod("cache-" + std::to_string(i), "1", "1Gi"))
        .spec.affinity.emplace()
        .podAffinity.emplace()
        .requiredDuringSchedulingIgnoredDuringExecution.push_back(affinityTerm(kHostname, "db"));
  }
  addPod(pod("db", "500m", "1Gi", {{"app", "db"}}));
  addPods(3, "other-", "1500m", "1Gi");
  Results r = run();
  EXPECT_TRUE(r.errors.empty());
  for (const auto& c : r.newNodeClaims) {
    EXPECT_EQ(holds(c, "db"), holds(c, "cache-0"));
    EXPECT_EQ(holds(c, "db"), holds(c, "cache-1"));
  }
}

TEST_F(SchedulerTest, ZoneSelfAffinityPinsOneZone) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 6; ++i) {
    addPod(pod("z-" + std::to_string(i), "1", "1Gi", {{"app", "z"}}))
        .spec.affinity.emplace()
        .podAffinity.emplace()
        .requiredDuringSchedulingIgnoredDuringExecution.push_back(affinityTerm(kZone, "z"));
  }
  Results r = run();
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{4, 2}));
  EXPECT_EQ(podsPerZone(r), (std::map<std::string, size_t>{{"zone-a", 6}}));
}

TEST_F(SchedulerTest, HostnameAntiAffinityGivesEachPodItsOwnNode) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 3; ++i) {
    addPod(pod("a-" + std::to_string(i), "500m", "1Gi", {{"app", "a"}}))
        .spec.affinity.emplace()
        .podAntiAffinity.emplace()
        .requiredDuringSchedulingIgnoredDuringExecution.push_back(affinityTerm(kHostname, "a"));
  }
  addPod(pod("plain", "500m", "1Gi"));
  Results r = run();
  ASSERT_EQ(r.newNodeClaims.size(), 3u);
  for (const auto& c : r.newNodeClaims) {
    size_t anti = 0;
    for (const auto* p : c.pods) {
      anti += p->metadata.labels.count("app");
    }
    EXPECT_EQ(anti, 1u);
  }
}

// kube-scheduler: a node without the term's topology label is in no domain, so the term cannot
// keep a pod off it.
TEST_F(SchedulerTest, AntiAffinityOnAKeyNoNodeHasExcludesNothing) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 3; ++i) {
    addPod(pod("a-" + std::to_string(i), "500m", "1Gi", {{"app", "a"}}))
        .spec.affinity.emplace()
        .podAntiAffinity.emplace()
        .requiredDuringSchedulingIgnoredDuringExecution.push_back(
            affinityTerm("example.com/rack", "a"));
  }
  Results r = run();
  EXPECT_TRUE(r.errors.empty()) << r.errors.begin()->second;
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_EQ(r.newNodeClaims[0].pods.size(), 3u);
}

TEST_F(SchedulerTest, ZoneAntiAffinityRunsOutOfZones) {
  addPool(nodePool("default"), xlargeOnly());
  for (int i = 0; i < 4; ++i) {
    addPod(pod("a-" + std::to_string(i), "500m", "1Gi", {{"app", "a"}}))
        .spec.affinity.emplace()
        .podAntiAffinity.emplace()
        .requiredDuringSchedulingIgnoredDuringExecution.push_back(affinityTerm(kZone, "a"));
  }
  Results r = run();
  EXPECT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(podsPerZone(r),
            (std::map<std::string, size_t>{{"zone-a", 1}, {"zone-b", 1}, {"zone-c", 1}}));
}

TEST_F(SchedulerTest, ExistingPodsAntiAffinityKeepsMatchingPodsAway) {
  addPool(nodePool("default"), xlargeOnly());
  nodes_.push_back(node("node-1", "zone-a", "4"));
  corev1::Pod guard = pod("guard", "100m", "100Mi");
  guard.spec.affinity.emplace()
      .podAntiAffinity.emplace()
      .requiredDuringSchedulingIgnoredDuringExecution.push_back(affinityTerm(kHostname, "web"));
  nodes_.back().pods = {&guard};
  addPod(pod("web", "1", "1Gi", {{"app", "web"}}));
  addPod(pod("plain", "1", "1Gi"));
  Results r = run();
  EXPECT_EQ(r.existingNodes, (std::map<std::string, std::string>{{"default/plain", "node-1"}}));
  ASSERT_EQ(r.newNodeClaims.size(), 1u);
  EXPECT_TRUE(holds(r.newNodeClaims[0], "web"));
}

TEST_F(SchedulerTest, ExistingNodesAndInFlightClaimsFillBeforeNewClaims) {
  addPool(nodePool("default"), xlargeOnly());
  nodes_.push_back(node("node-1", "zone-a", "4"));
  nodes_.back().requested = {{"cpu", q("1")}, {"pods", q("1")}};
  ExistingNode inflight = node("claim-abc", "zone-b", "4");
  inflight.nodePool = "default";
  nodes_.push_back(inflight);
  addPods(8, "p", "1", "1Gi");
  Results r = run();
  std::map<std::string, size_t> perNode;
  for (const auto& [pod, node] : r.existingNodes) {
    ++perNode[node];
  }
  EXPECT_EQ(perNode, (std::map<std::string, size_t>{{"claim-abc", 4}, {"node-1", 3}}));
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{1}));
}

TEST_F(SchedulerTest, TaintedOrCordonedNodesAreSkipped) {
  addPool(nodePool("default"), xlargeOnly());
  ExistingNode tainted = node("tainted", "zone-a", "4");
  corev1::Taint t;
  t.key = "dedicated";
  t.effect = "NoSchedule";
  tainted.taints = {t};
  ExistingNode cordoned = node("cordoned", "zone-a", "4");
  cordoned.schedulable = false;
  ExistingNode starting = node("starting", "zone-a", "4");
  corev1::Taint notReady;
  notReady.key = "node.kubernetes.io/not-ready";
  notReady.effect = "NoSchedule";
  starting.taints = {notReady};
  nodes_ = {tainted, cordoned, starting};
  addPods(5, "p", "1", "1Gi");
  Results r = run();
  EXPECT_EQ(r.existingNodes.size(), 4u);
  for (const auto& [pod, node] : r.existingNodes) {
    EXPECT_EQ(node, "starting");
  }
  EXPECT_EQ(podCounts(r), (std::vector<size_t>{1}));
}

}  // namespace
}  // namespace nodewright::controllers::provisioning::scheduling::testing
