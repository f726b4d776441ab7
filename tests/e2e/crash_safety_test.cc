#include <map>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "cloud/well_known_labels.h"
#include "support/e2e/cluster.h"
#include "support/e2e/machines.h"
#include "support/kube/objects.h"

// Crash safety of the whole controller: `nodewright controller` is killed with SIGKILL at 20
// random points of a 200-pod scale-up (ten more pods before each kill) and restarted each time.
// Whatever it was doing (a scheduling pass, a CreateFleet in flight, a status write), the cluster
// converges: no NodeClaim has two machines, garbage collection leaves no machine without a
// NodeClaim, and every pod runs.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::testdata;

TEST(CrashSafety, KilledTwentyTimesDuringAScaleUpTheClusterConverges) {
  EmbeddedCluster cluster;
  const std::vector<std::string> gc = {"--gc-interval", "2", "--gc-grace", "5"};
  cluster.startControllerProcess(gc);
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", testdata("nodepool.yaml")});
  cluster.kubectl({"apply", "-f", testdata("crash_workload.yaml")});

  // The kill points are random on purpose; the seed keeps a failure reproducible.
  std::mt19937 random(20261122);
  std::uniform_int_distribution<int> pause(100, 900);
  for (int kill = 0; kill < 20; ++kill) {
    // Ten more pods each time, so every kill lands while pods are pending and claims launch.
    cluster.kubectl(
        {"scale", "deployment", "crash", "--replicas=" + std::to_string(10 * (kill + 1))});
    std::this_thread::sleep_for(std::chrono::milliseconds(pause(random)));
    cluster.killControllerProcess();
    cluster.startControllerProcess(gc);
  }

  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 200); }, 240s))
      << "not every pod runs after the restarts";

  // Garbage collection (every 2 s, machines older than 5 s) leaves only accounted machines.
  std::map<std::string, std::string> claimOf;  // provider ID -> NodeClaim
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto machines = testing::machinesWithClaims(cluster);
        claimOf = machines.value_or(claimOf);
        return machines.has_value();
      },
      60s))
      << "a machine without a NodeClaim survived garbage collection";

  for (const auto& [claim, count] : testing::launchesPerClaim(cluster)) {
    EXPECT_EQ(count, 1) << "NodeClaim " << claim << " was launched " << count << " times";
  }
  for (const auto& claim : cluster.nodeClaims()) {
    EXPECT_TRUE(claim.status.providerID.empty() || claimOf.count(claim.status.providerID))
        << claim.metadata.name << " points at a machine that is not running";
  }
  std::cout << "after 20 kills: " << cluster.nodeClaims().size() << " NodeClaims, "
            << claimOf.size() << " machines, 200 pods running\n";
}

}  // namespace
}  // namespace nodewright::e2e
