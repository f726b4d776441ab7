#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Seed scenario of issue 7: a NodePool, an EC2NodeClass and 500 pending pods applied with
// kubectl; nodewright launches nodes on the EC2 emulator, the node agent registers them and
// binds the pods, and every pod runs on a node nodewright launched.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::testdata;

bool running(const api::corev1::Pod& pod) {
  return pod.status.phase == "Running" && !pod.spec.nodeName.empty();
}

bool conditionTrue(const api::karpenter::NodeClaim& claim, const std::string& type) {
  for (const auto& c : claim.status.conditions) {
    if (c.type == type) {
      return c.status == "True";
    }
  }
  return false;
}

// Every pod Running on a Node whose providerID one of nodewright's NodeClaims launched, and
// every NodeClaim Ready. Returns the claims.
std::vector<api::karpenter::NodeClaim> expectAllRunningOnLaunchedNodes(EmbeddedCluster& cluster,
                                                                       size_t pods) {
  const auto claims = cluster.nodeClaims();
  std::set<std::string> launched;
  for (const auto& claim : claims) {
    EXPECT_TRUE(conditionTrue(claim, "Ready")) << claim.metadata.name << " is not ready";
    launched.insert(claim.status.providerID);
  }
  std::map<std::string, std::string> providerOf;
  for (const auto& node : cluster.nodes()) {
    providerOf[node.metadata.name] = node.spec.providerID;
  }
  size_t counted = 0;
  for (const auto& pod : cluster.pods()) {
    ++counted;
    EXPECT_TRUE(running(pod)) << pod.metadata.name << " is " << pod.status.phase;
    EXPECT_TRUE(launched.count(providerOf[pod.spec.nodeName]))
        << pod.metadata.name << " runs on " << pod.spec.nodeName << ", which no NodeClaim launched";
  }
  EXPECT_EQ(counted, pods);
  return claims;
}

TEST(ProvisioningEndToEnd, FiveHundredPendingPodsBecomeNodesThroughKubectl) {
  EmbeddedCluster cluster;
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", testdata("nodepool.yaml")});
  cluster.kubectl({"apply", "-f", testdata("workload.yaml")});

  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 500); }, 180s))
      << "not every pod is running";
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto claims = cluster.nodeClaims();
        return std::all_of(claims.begin(), claims.end(),
                           [](const auto& c) { return conditionTrue(c, "Ready"); });
      },
      60s))
      << "a NodeClaim is left unready";
  const auto claims = expectAllRunningOnLaunchedNodes(cluster, 500);
  const double cost = cluster.costPerHour(claims);
  std::map<std::string, int> byType;
  for (const auto& claim : claims) {
    ++byType[claim.metadata.labels.at("node.kubernetes.io/instance-type") + "/" +
             claim.metadata.labels.at("karpenter.sh/capacity-type")];
  }
  std::cout << fmt::format("500 pods on {} nodes, total cost ${:.4f}/hour\n", claims.size(), cost);
  for (const auto& [type, count] : byType) {
    std::cout << "  " << count << " x " << type << "\n";
  }
  EXPECT_GT(cost, 0);
  // 335 vCPU and 762.5 GiB requested: a sane packing needs fewer nodes than a node per pod.
  EXPECT_LT(claims.size(), 100u);
}

}  // namespace
}  // namespace nodewright::e2e
