#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/karpenter/well_known.h"
#include "controllers/disruption/command.h"
#include "support/apiserver/test_server.h"
#include "support/e2e/cluster.h"
#include "support/e2e/machines.h"
#include "support/kube/objects.h"

// Crash safety of consolidation: `nodewright controller` is killed with SIGKILL at 20 random
// points while it consolidates, and restarted each time. The points are counted in
// disruption writes, not time: after each restart the test waits for a random number (1 to 4)
// of changes to the NodeClaims' disruption state (a command recorded or advanced, a
// replacement created or launched, a candidate deleted) and then kills. Each round scales the
// Deployment from 8 to 30 pods (on nodes of at most 4 CPUs) and back; when its consolidation
// has settled, another round starts.
// At the end the pool's bill is within 10% of provisioning 8 pods from nothing, each NodeClaim
// was launched once, and no machine is left without a NodeClaim.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::testdata;

constexpr int kKills = 20;
constexpr unsigned kDefaultSeed = 20261129;

// NW_CRASH_SEED reproduces another run's kill points.
unsigned seed() {
  const char* env = std::getenv("NW_CRASH_SEED");
  return env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : kDefaultSeed;
}

// What the disruption controller has written, one entry per NodeClaim: its command (phase,
// replacements), whether it is being deleted, whether it has a machine. A change is a write.
std::set<std::string> disruptionState(EmbeddedCluster& cluster) {
  std::set<std::string> state;
  for (const auto& claim : cluster.nodeClaims()) {
    const auto& annotations = claim.metadata.annotations;
    auto command = annotations.find(api::karpenter::kDisruptionAnnotation);
    state.insert(claim.metadata.name + "|" + (command == annotations.end() ? "" : command->second) +
                 "|" + (claim.metadata.deletionTimestamp ? "deleting" : "") + "|" +
                 claim.status.providerID);
  }
  return state;
}

// The phases of the commands in flight, "idle" when there is none: where a kill landed.
std::string phases(EmbeddedCluster& cluster) {
  std::set<std::string> found;
  for (const auto& claim : cluster.nodeClaims()) {
    const auto& annotations = claim.metadata.annotations;
    auto text = annotations.find(api::karpenter::kDisruptionAnnotation);
    if (text == annotations.end()) {
      continue;
    }
    auto command = controllers::disruption::decodeCommand(text->second);
    found.insert(command ? command->phase : "undecodable");
  }
  std::string joined;
  for (const auto& phase : found) {
    joined += (joined.empty() ? "" : "+") + phase;
  }
  return joined.empty() ? "idle" : joined;
}

// 8 pods Running, nothing disrupting or terminating, and the bill within 10% of `fresh`.
bool settled(EmbeddedCluster& cluster, double fresh) {
  if (!allPodsRunning(cluster, 8)) {
    return false;
  }
  auto claims = cluster.nodeClaims();
  for (const auto& claim : claims) {
    if (claim.metadata.deletionTimestamp ||
        claim.metadata.annotations.contains(api::karpenter::kDisruptionAnnotation)) {
      return false;
    }
  }
  return cluster.costPerHour(claims) <= 1.10 * fresh;
}

TEST(ConsolidationCrashSafety, KilledTwentyTimesWhileConsolidatingTheClusterConverges) {
  const auto began = std::chrono::steady_clock::now();
  EmbeddedCluster cluster;
  const std::vector<std::string> flags = {
      "--gc-interval", "2", "--gc-grace", "5", "--disruption-poll-interval", "1"};
  cluster.startControllerProcess(flags);
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", testdata("consolidation_nodepool.yaml")});
  // Nodes of at most 4 CPUs: 30 pods take about ten, so that each round's consolidation has
  // several nodes to take apart, and several writes to be killed after.
  // Retried: nodewright's API server answers a patch that races a status write with 409, where
  // kube-apiserver retries it itself (a server defect, noted for the next session).
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        return apiserver::testing::kubectl(
                   cluster.apiServer(),
                   {"patch", "nodepool", "default", "--type", "json", "-p",
                    R"([{"op": "replace", "path": "/spec/template/spec/requirements/3/values",)"
                    R"( "value": ["5"]}])"})
                   .code == 0;
      },
      30s))
      << "the NodePool's CPU requirement could not be patched";
  cluster.kubectl({"apply", "-f", testdata("consolidation_workload.yaml")});
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 8); }, 120s));
  const double fresh = cluster.costPerHour(cluster.nodeClaims());
  ASSERT_GT(fresh, 0);

  const unsigned s = seed();
  std::printf("consolidation crash seed=%u\n", s);
  std::mt19937 random(s);
  std::uniform_int_distribution<int> writesBeforeKill(1, 4);
  std::map<std::string, int> killsIn;  // phases in flight -> kills
  int kills = 0;
  int rounds = 0;
  while (kills < kKills) {
    ++rounds;
    ASSERT_LE(rounds, 10) << "consolidation settled too soon for " << kKills << " kills";
    cluster.kubectl({"scale", "deployment/inflate", "--replicas=30"});
    ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 30); }, 180s))
        << "round " << rounds << ": 30 pods do not run";
    cluster.kubectl({"scale", "deployment/inflate", "--replicas=8"});
    std::set<std::string> last = disruptionState(cluster);
    while (kills < kKills) {
      const int want = writesBeforeKill(random);
      int seen = 0;
      bool done = false;
      ASSERT_TRUE(kube::testing::eventually(
          [&] {
            std::set<std::string> now = disruptionState(cluster);
            if (now != last) {
              ++seen;
              last = std::move(now);
            }
            done = seen < want && settled(cluster, fresh);
            return seen >= want || done;
          },
          120s))
          << "consolidation made no progress in 2 minutes (round " << rounds << ", kill " << kills
          << ")";
      if (done) {
        break;
      }
      ++killsIn[phases(cluster)];
      cluster.killControllerProcess();
      cluster.startControllerProcess(flags);
      ++kills;
    }
  }

  ASSERT_TRUE(kube::testing::eventually([&] { return settled(cluster, fresh); }, 180s))
      << "the cluster did not settle at 8 pods within 10% of $" << fresh << "/h";

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
  const auto claims = cluster.nodeClaims();
  for (const auto& claim : claims) {
    EXPECT_TRUE(claimOf.count(claim.status.providerID))
        << claim.metadata.name << " points at a machine that is not running";
  }
  EXPECT_EQ(claimOf.size(), claims.size()) << "more machines than NodeClaims";
  const auto launches = testing::launchesPerClaim(cluster);
  for (const auto& [claim, count] : launches) {
    EXPECT_EQ(count, 1) << "NodeClaim " << claim << " was launched " << count << " times";
  }

  // No creating request was made twice under one client token (the idempotency token of a
  // NodeClaim's launch), terminated instances long forgotten by the emulator included.
  const auto duplicates = cluster.emulator()->emulator().engine().stats().duplicateTokens();
  EXPECT_TRUE(duplicates.empty()) << duplicates.size() << " client tokens created twice, first "
                                  << duplicates.front();

  std::string where;
  for (const auto& [phase, n] : killsIn) {
    where += " " + phase + "=" + std::to_string(n);
  }
  std::printf(
      "consolidation crash seed=%u kills=%d rounds=%d kills_in:%s claims_launched=%zu "
      "final_claims=%zu cost=%.4f fresh=%.4f seconds=%.1f\n",
      s, kills, rounds, where.c_str(), launches.size(), claims.size(), cluster.costPerHour(claims),
      fresh, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
}

}  // namespace
}  // namespace nodewright::e2e
