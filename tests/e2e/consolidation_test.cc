#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "api/core/policy.h"
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

// The least headroom the PodDisruptionBudget's status shows (currentHealthy - desiredHealthy,
// as the API server's disruption controller keeps it); negative is a violation.
std::optional<int> pdbHeadroom(EmbeddedCluster& cluster) {
  auto pdb =
      kube::Typed<api::corev1::PodDisruptionBudget>(cluster.client()).get("default", "inflate");
  if (!pdb || pdb->status.expectedPods == 0) {
    return std::nullopt;  // not yet computed
  }
  return pdb->status.currentHealthy - pdb->status.desiredHealthy;
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
  cluster.kubectl({"apply", "-f", testdata("consolidation_nodepool.yaml")});

  // What provisioning picks for 8 such pods on an empty pool.
  cluster.kubectl({"apply", "-f", testdata("consolidation_workload.yaml")});
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
  int leastHeadroom = 1;
  size_t samples = 0;
  double cost = peak;
  const bool converged = kube::testing::eventually(
      [&] {
        fewestRunning = std::min(fewestRunning, runningPods(cluster));
        mostPods = std::max(mostPods, cluster.pods().size());
        if (auto headroom = pdbHeadroom(cluster)) {
          leastHeadroom = std::min(leastHeadroom, *headroom);
        }
        ++samples;
        cost = cluster.costPerHour(cluster.nodeClaims());
        return cost <= 1.10 * fresh && allPodsRunning(cluster, 8);
      },
      300s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "consolidation e2e fresh=%.4f peak=%.4f after=%.4f seconds=%.1f nodes=%zu samples=%zu "
      "fewest_running=%zu least_pdb_headroom=%d\n",
      fresh, peak, cost, seconds, cluster.nodeClaims().size(), samples, fewestRunning,
      leastHeadroom);
  EXPECT_TRUE(converged) << "cost $" << cost << "/h after 5 minutes; fresh 8 pods cost $" << fresh
                         << "/h";
  // maxUnavailable 1: at most one of the 8 away at any look.
  EXPECT_GE(fewestRunning, 7u) << "more pods were away than the PodDisruptionBudget allows";
  EXPECT_LE(mostPods, 9u);
  EXPECT_GE(leastHeadroom, 0) << "the PodDisruptionBudget's status showed fewer healthy pods than "
                                 "it requires";
  // Settled: no claim is left terminating.
  for (const auto& claim : cluster.nodeClaims()) {
    EXPECT_FALSE(claim.metadata.deletionTimestamp) << claim.metadata.name;
  }
}

}  // namespace
}  // namespace nodewright::e2e
