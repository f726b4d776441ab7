// The binder's first-fit planner alone (pure logic): resource arithmetic of init containers and
// sidecars, and one pass at the size the issue names.
#include "emulators/kubelet/planner.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "emulators/kubelet/planner_scenario.h"
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

// 500 pods of the scheduling benchmark's five shares over 100 nodes in 3 zones: every pod placed,
// hostname anti-affinity honoured. bench/emulators/kubelet_planner_bench.cc times the same pass.
TEST(PlannerTest, PlacesFiveHundredPodsOnOneHundredNodes) {
  const PlannerScenario scenario = fiveSharesScenario(500, 100);
  std::vector<const Node*> nodePointers;
  for (const Node& node : scenario.nodes) {
    nodePointers.push_back(&node);
  }
  Planner planner(nodePointers, {});
  std::set<std::string> antiNodes;
  int placed = 0;
  for (const Pod& pod : scenario.pods) {
    auto placement = planner.place(pod);
    ASSERT_TRUE(placement.node) << pod.metadata.name << ": " << placement.reason;
    ++placed;
    if (pod.metadata.labels.at("app") == "share-4") {
      EXPECT_TRUE(antiNodes.insert(*placement.node).second) << "two anti-affine pods on one node";
    }
  }
  EXPECT_EQ(placed, 500);
  EXPECT_EQ(antiNodes.size(), 100u);
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
