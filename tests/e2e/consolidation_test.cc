#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "cmd/controller_set.h"
#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Consolidation end to end, against the EC2 emulator: a Deployment of 30 one-CPU pods scaled to
// 8 leaves underused nodes; within five minutes they are consolidated, replace first, to a bill
// within 10% of what provisioning picks for 8 such pods from nothing, while the pods stay
// Running within their PodDisruptionBudget (maxUnavailable: 1).
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::testdata;

// On demand only: with spot, a spot node is replaced only under SpotToSpotConsolidation (off,
// as upstream's feature gate), so an oversized spot node would stay.
constexpr const char* kPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
        - key: karpenter.k8s.aws/instance-cpu
          operator: Lt
          values: ["33"]
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
)";

std::string workload(int replicas) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: inflate
  namespace: default
spec:
  replicas: )" + std::to_string(replicas) +
         R"(
  selector:
    matchLabels:
      app: inflate
  template:
    metadata:
      labels:
        app: inflate
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: "1"
              memory: 256Mi
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: inflate
  namespace: default
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: inflate
)";
}

size_t runningPods(EmbeddedCluster& cluster) {
  size_t running = 0;
  for (const auto& pod : cluster.pods()) {
    running += pod.status.phase == "Running" && !pod.metadata.deletionTimestamp ? 1 : 0;
  }
  return running;
}

TEST(ConsolidationEndToEnd, ThirtyPodsScaledToEightConsolidateWithinTheBudget) {
  EmbeddedCluster cluster;
  cluster.startControllers(
      [](cmd::ControllerSetOptions& options) { options.disruption.pollInterval = 1s; });
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", "-"}, kPool);

  // What provisioning picks for 8 such pods on an empty pool.
  cluster.kubectl({"apply", "-f", "-"}, workload(8));
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 8); }, 120s));
  const double fresh = cluster.costPerHour(cluster.nodeClaims());
  ASSERT_GT(fresh, 0);

  cluster.kubectl({"scale", "deployment/inflate", "--replicas=30"});
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 30); }, 180s));
  const double peak = cluster.costPerHour(cluster.nodeClaims());

  cluster.kubectl({"scale", "deployment/inflate", "--replicas=8"});
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 8); }, 60s));
  const auto start = std::chrono::steady_clock::now();
  size_t fewestRunning = 8;
  size_t mostPods = 0;
  double cost = peak;
  const bool converged = kube::testing::eventually(
      [&] {
        fewestRunning = std::min(fewestRunning, runningPods(cluster));
        mostPods = std::max(mostPods, cluster.pods().size());
        cost = cluster.costPerHour(cluster.nodeClaims());
        return cost <= 1.10 * fresh && allPodsRunning(cluster, 8);
      },
      300s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("consolidation e2e fresh=%.4f peak=%.4f after=%.4f seconds=%.1f nodes=%zu\n", fresh,
              peak, cost, seconds, cluster.nodeClaims().size());
  EXPECT_TRUE(converged) << "cost $" << cost << "/h after 5 minutes; fresh 8 pods cost $" << fresh
                         << "/h";
  // maxUnavailable 1: at most one of the 8 away at any look.
  EXPECT_GE(fewestRunning, 7u) << "more pods were away than the PodDisruptionBudget allows";
  EXPECT_LE(mostPods, 9u);
  // Settled: no claim is left terminating.
  for (const auto& claim : cluster.nodeClaims()) {
    EXPECT_FALSE(claim.metadata.deletionTimestamp) << claim.metadata.name;
  }
}

}  // namespace
}  // namespace nodewright::e2e
