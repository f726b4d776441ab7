// The binder against the embedded API server: exact first-fit placements through pods/binding
// over resources, taints, selectors, affinity, anti-affinity and spread, and PodScheduled=False
// for what fits nowhere.
#include "emulators/kubelet/binder.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "emulators/kubelet/cluster.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

class BinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binder_ = std::make_unique<Binder>(*cluster_.client, cluster_.clock);
    binder_->setup(*cluster_.manager);
    cluster_.start();
  }
  void TearDown() override { cluster_.stop(); }

  // Returns once the binder's informer has the node: a pod planned before it would be marked
  // unschedulable, and placements() takes that mark as the answer.
  void createNode(const Node& node) {
    auto created = cluster_.nodes.create(node);
    ASSERT_TRUE(created) << created.error().describe();
    const kube::Cache& seen = cluster_.manager->informerFor<Node>().cache();
    EXPECT_TRUE(cluster_.advanceUntil(
        [&] {
          for (const api::Object& object : seen.list()) {
            const Node* stored = object.as<Node>();
            if (stored != nullptr && stored->metadata.name == node.metadata.name) {
              return true;
            }
          }
          return false;
        },
        std::chrono::milliseconds(10)))
        << "the binder never saw node " << node.metadata.name;
  }
  void createPod(const Pod& pod) {
    auto created = cluster_.pods.create(pod);
    ASSERT_TRUE(created) << created.error().describe();
  }

  // The PodScheduled=False/Unschedulable message, or "" without one.
  std::string unschedulable(const std::string& name) {
    auto pod = cluster_.pod(name);
    const auto* c = pod ? api::corev1::findCondition(pod->status, "PodScheduled") : nullptr;
    return c != nullptr && c->status == "False" && c->reason == "Unschedulable" ? c->message : "";
  }

  // Waits until every named pod is bound or marked unschedulable; returns their nodes in order
  // ("" for unschedulable ones).
  std::vector<std::string> placements(const std::vector<std::string>& names) {
    EXPECT_TRUE(cluster_.advanceUntil(
        [&] {
          for (const auto& name : names) {
            if (cluster_.nodeOf(name).empty() && unschedulable(name).empty()) {
              return false;
            }
          }
          return true;
        },
        std::chrono::milliseconds(10)));
    std::vector<std::string> out;
    for (const auto& name : names) {
      out.push_back(cluster_.nodeOf(name));
    }
    return out;
  }

  using Strings = std::vector<std::string>;

  Cluster cluster_;
  std::unique_ptr<Binder> binder_;
};

api::corev1::PodAffinityTerm term(const std::string& app, const std::string& topologyKey) {
  api::corev1::PodAffinityTerm t;
  t.labelSelector = api::LabelSelector{{{"app", app}}, {}};
  t.topologyKey = topologyKey;
  return t;
}

TEST_F(BinderTest, BindsFirstFitByResourcesAndMarksTheRestUnschedulable) {
  createNode(readyNode("node-a", "2", "8Gi", 110));
  createNode(readyNode("node-b", "4", "8Gi", 110));
  createPod(pendingPod("p1", "1500m", "1Gi"));
  createPod(pendingPod("p2", "1500m", "1Gi"));
  createPod(pendingPod("p3", "1", "1Gi"));
  createPod(pendingPod("p4", "3", "1Gi"));

  EXPECT_EQ(placements({"p1", "p2", "p3", "p4"}), (Strings{"node-a", "node-b", "node-b", ""}));
  EXPECT_EQ(unschedulable("p4"), "0/2 nodes are available: 2 Insufficient cpu.");
  auto bound = cluster_.pod("p1");
  ASSERT_TRUE(bound);
  const auto* scheduled = api::corev1::findCondition(bound->status, "PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "True");
}

TEST_F(BinderTest, CountsInitContainersAndOverhead) {
  createNode(readyNode("node-a", "2", "8Gi", 110));
  createNode(readyNode("node-b", "4", "8Gi", 110));
  Pod init = pendingPod("init", "500m");
  api::corev1::Container setup;
  setup.name = "setup";
  setup.image = "registry.k8s.io/pause";
  setup.resources.requests["cpu"] = q("2500m");  // the init peak: 2.5 cpu, more than node-a
  init.spec.initContainers = {setup};
  createPod(init);
  Pod overhead = pendingPod("overhead", "1500m");
  overhead.spec.overhead["cpu"] = q("1");  // 2.5 cpu in all: only node-b has 1.5 left
  createPod(overhead);

  EXPECT_EQ(placements({"init", "overhead"}), (Strings{"node-b", ""}));
  EXPECT_EQ(unschedulable("overhead"), "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST_F(BinderTest, HonoursTaintsAndTolerations) {
  Node gpu = readyNode("node-a", "4", "8Gi", 110);
  gpu.spec.taints = {taint("dedicated", "gpu", "NoSchedule")};
  createNode(gpu);
  createNode(readyNode("node-b", "1", "8Gi", 110));
  createPod(pendingPod("plain", "500m"));
  Pod tolerating = pendingPod("tolerating", "500m");
  api::corev1::Toleration toleration;
  toleration.key = "dedicated";
  toleration.operator_ = "Equal";
  toleration.value = "gpu";
  toleration.effect = "NoSchedule";
  tolerating.spec.tolerations = {toleration};
  createPod(tolerating);
  createPod(pendingPod("too-big", "1"));

  EXPECT_EQ(placements({"plain", "tolerating", "too-big"}), (Strings{"node-b", "node-a", ""}));
  EXPECT_EQ(unschedulable("too-big"),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
            "{dedicated: gpu}.");
}

TEST_F(BinderTest, HonoursNodeSelectorsAndRequiredNodeAffinity) {
  createNode(readyNode("node-a", "4", "8Gi", 110, "us-east-1a"));
  createNode(readyNode("node-b", "4", "8Gi", 110, "us-east-1b"));
  createNode(readyNode("node-c", "4", "8Gi", 110, "us-east-1c"));
  Pod selected = pendingPod("selected", "100m");
  selected.spec.nodeSelector = {{"topology.kubernetes.io/zone", "us-east-1b"}};
  createPod(selected);
  auto affinityTo = [](const std::string& name, const std::string& op, Strings zones) {
    Pod pod = pendingPod(name, "100m");
    api::corev1::NodeSelectorTerm t;
    t.matchExpressions = {{"topology.kubernetes.io/zone", op, std::move(zones)}};
    api::corev1::NodeSelector selector;
    selector.nodeSelectorTerms = {t};
    api::corev1::NodeAffinity affinity;
    affinity.requiredDuringSchedulingIgnoredDuringExecution = selector;
    pod.spec.affinity.emplace();
    pod.spec.affinity->nodeAffinity = affinity;
    return pod;
  };
  createPod(affinityTo("in-c", "In", {"us-east-1c"}));
  createPod(affinityTo("not-a", "NotIn", {"us-east-1a"}));
  createPod(affinityTo("nowhere", "In", {"us-west-2a"}));

  EXPECT_EQ(placements({"selected", "in-c", "not-a", "nowhere"}),
            (Strings{"node-b", "node-c", "node-b", ""}));
  EXPECT_EQ(unschedulable("nowhere"),
            "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.");
}

TEST_F(BinderTest, KeepsPodsApartWithRequiredAntiAffinity) {
  for (const char* name : {"node-a", "node-b", "node-c"}) {
    createNode(readyNode(name, "4", "8Gi", 110));
  }
  auto web = [&](const char* name) {
    Pod pod = pendingPod(name, "100m");
    pod.spec.affinity.emplace();
    pod.spec.affinity->podAntiAffinity.emplace();
    pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {
        term("web", "kubernetes.io/hostname")};
    createPod(pod);
  };
  for (const char* name : {"w1", "w2", "w3"}) {
    web(name);
  }
  // Placed before the rest arrive: a pass that saw other-web beside w3 could give it w3's
  // node first, as kube-scheduler could.
  ASSERT_EQ(placements({"w1", "w2", "w3"}), (Strings{"node-a", "node-b", "node-c"}));
  web("w4");
  // No anti-affinity of its own, but the web pods' terms select it: none can take it.
  createPod(pendingPod("other-web", "100m"));

  EXPECT_EQ(placements({"w1", "w2", "w3", "w4", "other-web"}),
            (Strings{"node-a", "node-b", "node-c", "", ""}));
  EXPECT_EQ(unschedulable("w4"),
            "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
  EXPECT_EQ(unschedulable("other-web"),
            "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity "
            "rules.");
}

TEST_F(BinderTest, SpreadsOverZonesWithinMaxSkew) {
  createNode(readyNode("a1", "4", "8Gi", 110, "us-east-1a"));
  createNode(readyNode("a2", "4", "8Gi", 110, "us-east-1a"));
  createNode(readyNode("b1", "4", "8Gi", 110, "us-east-1b"));
  for (const char* name : {"s1", "s2", "s3", "s4", "s5"}) {
    Pod pod = pendingPod(name, "100m", "", "spread");
    api::corev1::TopologySpreadConstraint spread;
    spread.maxSkew = 1;
    spread.topologyKey = "topology.kubernetes.io/zone";
    spread.whenUnsatisfiable = "DoNotSchedule";
    spread.labelSelector = api::LabelSelector{{{"app", "spread"}}, {}};
    pod.spec.topologySpreadConstraints = {spread};
    createPod(pod);
  }

  EXPECT_EQ(placements({"s1", "s2", "s3", "s4", "s5"}), (Strings{"a1", "b1", "a1", "b1", "a1"}));
}

TEST_F(BinderTest, SkipsNodesNotReadyOrCordonedAndPodsOfOtherSchedulers) {
  Node notReady = readyNode("node-a", "4", "8Gi", 110);
  notReady.status.conditions[0].status = "False";
  createNode(notReady);
  Node cordoned = readyNode("node-b", "4", "8Gi", 110);
  cordoned.spec.unschedulable = true;
  createNode(cordoned);
  createNode(readyNode("node-c", "4", "8Gi", 110));
  Pod foreign = pendingPod("foreign", "100m");
  foreign.spec.schedulerName = "other-scheduler";
  createPod(foreign);
  createPod(pendingPod("mine", "100m"));
  createPod(pendingPod("huge", "8"));

  EXPECT_EQ(placements({"mine", "huge"}), (Strings{"node-c", ""}));
  EXPECT_EQ(unschedulable("huge"),
            "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
            "{node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.");
  // The pass that bound "mine" saw "foreign" too and left it alone.
  EXPECT_EQ(cluster_.nodeOf("foreign"), "");
  EXPECT_EQ(unschedulable("foreign"), "");
}

// Bindings the cache does not show yet still hold their node's room (kube-scheduler's assumed
// pods): six pods created at once onto a node with room for three never overcommit it.
TEST_F(BinderTest, CountsItsOwnBindingsBeforeTheCacheShowsThem) {
  createNode(readyNode("node-a", "64", "64Gi", 3));
  Strings names;
  for (int i = 0; i < 6; ++i) {
    names.push_back("p" + std::to_string(i));
    createPod(pendingPod(names.back(), "100m"));
  }
  EXPECT_EQ(placements(names), (Strings{"node-a", "node-a", "node-a", "", "", ""}));
  EXPECT_EQ(unschedulable("p5"), "0/1 nodes are available: 1 Too many pods.");
}

// The scale: 500 pending pods over 100 nodes are all bound, each node within its room.
TEST_F(BinderTest, BindsFiveHundredPodsOntoOneHundredNodes) {
  for (int i = 0; i < 100; ++i) {
    createNode(readyNode("node-" + std::to_string(1000 + i), "4", "16Gi", 110));
  }
  Strings names;
  for (int i = 0; i < 500; ++i) {
    names.push_back("p" + std::to_string(1000 + i));
    createPod(pendingPod(names.back(), "700m"));  // five per node: 3.5 of 4 cpu
  }
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    for (const Pod& pod : cluster_.podList()) {
      if (pod.spec.nodeName.empty()) {
        return false;
      }
    }
    return true;
  }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::map<std::string, int> perNode;
  for (const Pod& pod : cluster_.podList()) {
    ++perNode[pod.spec.nodeName];
  }
  EXPECT_EQ(perNode.size(), 100u);
  for (const auto& [node, count] : perNode) {
    EXPECT_EQ(count, 5) << node;
  }
  const BinderStats stats = binder_->stats();
  EXPECT_EQ(stats.bound, 500u);
  std::printf(
      "binder pods=500 nodes=100 passes=%llu bound_after_last_create_seconds=%.3f "
      "last_plan_us=%lld\n",
      static_cast<unsigned long long>(stats.passes), seconds,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::microseconds>(stats.lastPlanTime).count()));
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
