// The binder's first-fit planner alone (pure logic): resource arithmetic of init containers and
// sidecars, and the cost of one pass at the size the issue names.
#include "emulators/kubelet/planner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "emulators/kubelet/cluster.h"
#include "emulators/kubelet/pod_resources.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

TEST(PodRequestsTest, TakesTheLargerOfContainersAndInitPeakWithSidecarsAdded) {
  Pod pod = pendingPod("p", "500m", "1Gi");
  api::corev1::Container sidecar;
  sidecar.name = "proxy";
  sidecar.restartPolicy = "Always";
  sidecar.resources.requests["cpu"] = q("200m");
  api::corev1::Container migrate;
  migrate.name = "migrate";
  migrate.resources.requests["cpu"] = q("1");
  migrate.resources.requests["memory"] = q("512Mi");
  pod.spec.initContainers = {sidecar, migrate};
  pod.spec.overhead["cpu"] = q("50m");

  // cpu: max(500 + 200, 1000 + 200) + 50; memory: max(1Gi, 512Mi).
  EXPECT_EQ(podMilliRequests(pod),
            (Resources{{"cpu", 1250}, {"memory", int64_t{1073741824} * 1000}, {"pods", 1000}}));
}

// 500 pods in the benchmark's shares (plain, zone spread, hostname spread, zone self-affinity,
// hostname anti-affinity) over 100 nodes in 3 zones: every pod placed, in milliseconds.
TEST(PlannerTest, PlacesFiveHundredPodsOnOneHundredNodesInMilliseconds) {
  std::vector<Node> nodes;
  for (int i = 0; i < 100; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "node-%03d", i);
    nodes.push_back(readyNode(name, "16", "64Gi", 110, "us-east-1" + std::string(1, 'a' + i % 3)));
  }
  std::vector<Pod> pods;
  const char* cpus[] = {"100m", "250m", "500m", "1", "1500m"};
  for (int i = 0; i < 500; ++i) {
    const int share = i % 5;
    Pod pod = pendingPod("p" + std::to_string(i), cpus[i % 5], std::to_string(100 + i) + "Mi",
                         "share-" + std::to_string(share));
    api::corev1::TopologySpreadConstraint spread;
    spread.maxSkew = 1;
    spread.whenUnsatisfiable = "DoNotSchedule";
    spread.labelSelector = api::LabelSelector{{{"app", "share-" + std::to_string(share)}}, {}};
    api::corev1::PodAffinityTerm term;
    term.labelSelector = spread.labelSelector;
    if (share == 1 || share == 2) {
      spread.topologyKey = share == 1 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname";
      pod.spec.topologySpreadConstraints = {spread};
    } else if (share == 3) {
      term.topologyKey = "topology.kubernetes.io/zone";
      pod.spec.affinity.emplace();
      pod.spec.affinity->podAffinity.emplace();
      pod.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution = {term};
    } else if (share == 4) {
      term.topologyKey = "kubernetes.io/hostname";
      pod.spec.affinity.emplace();
      pod.spec.affinity->podAntiAffinity.emplace();
      pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {term};
    }
    pods.push_back(std::move(pod));
  }

  const auto started = std::chrono::steady_clock::now();
  std::vector<const Node*> nodePointers;
  for (const Node& node : nodes) {
    nodePointers.push_back(&node);
  }
  Planner planner(nodePointers, {});
  std::map<std::string, int> perNode;
  std::set<std::string> antiNodes;
  std::map<std::string, std::set<std::string>> zonesOfAffinity;
  int placed = 0;
  for (const Pod& pod : pods) {
    auto placement = planner.place(pod);
    ASSERT_TRUE(placement.node) << pod.metadata.name << ": " << placement.reason;
    ++placed;
    ++perNode[*placement.node];
    if (pod.metadata.labels.at("app") == "share-4") {
      EXPECT_TRUE(antiNodes.insert(*placement.node).second) << "two anti-affine pods on one node";
    }
  }
  const auto elapsed = std::chrono::steady_clock::now() - started;
  const double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  std::printf("planner pods=500 nodes=100 milliseconds=%.2f\n", ms);
  EXPECT_EQ(placed, 500);
  EXPECT_EQ(antiNodes.size(), 100u);
  EXPECT_LT(ms, 500.0);
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
