#include <map>
#include <set>

#include "api/karpenter/hashing.h"
#include "drift_support.h"

// Drift never churns the fleet by accident: an upgrade that changes every hash drifts no node,
// and a controller killed with SIGKILL in the middle of replacements, at several points, never
// leaves a node deleted without its replacement, nor a node with two replacements.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::isDrifted;
using testing::RolloutWatch;
using testing::testdata;

constexpr const char* kCanary = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: canary
spec:
  template:
    metadata:
      labels:
        tier: canary
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      # Only the canary's pods go here.
      taints:
        - key: tier
          value: canary
          effect: NoSchedule
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-cpu
          operator: Lt
          values: ["9"]
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: canary
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels:
      app: canary
  template:
    metadata:
      labels:
        app: canary
    spec:
      terminationGracePeriodSeconds: 0
      nodeSelector:
        karpenter.sh/nodepool: canary
      tolerations:
        - key: tier
          operator: Equal
          value: canary
          effect: NoSchedule
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: 500m
)";

std::string annotation(const api::karpenter::NodeClaim& claim, const char* key) {
  auto it = claim.metadata.annotations.find(key);
  return it == claim.metadata.annotations.end() ? std::string() : it->second;
}

TEST(DriftSafety, AnUpgradeThatChangesEveryHashDriftsNoNode) {
  EmbeddedCluster cluster;
  auto fast = [](cmd::ControllerSetOptions& options) {
    options.drift.recheck = 2s;
    options.disruption.pollInterval = 1s;
  };
  cluster.startControllers(fast);
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", "-"}, testing::nodePoolWithBudget("100%"));
  cluster.kubectl({"apply", "-f", "-"}, testing::kSpreadWorkload);
  cluster.kubectl({"apply", "-f", "-"}, kCanary);
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 4); }, 120s));
  const auto before = cluster.nodeClaims();

  // The upgrade: the same fleet under a build whose hashes all differ.
  cluster.stopControllers();
  const api::karpenter::HashPolicy upgraded{"nw-upgrade-test", 0x5eed};
  cluster.startControllers([&](cmd::ControllerSetOptions& options) {
    fast(options);
    options.hashPolicy = upgraded;
  });
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        for (const auto& claim : cluster.nodeClaims()) {
          if (annotation(claim, api::karpenter::kNodePoolHashVersionAnnotation) !=
                  upgraded.version ||
              annotation(claim, api::karpenter::kNodeClassHashVersionAnnotation) !=
                  upgraded.version) {
            return false;
          }
        }
        return true;
      },
      60s))
      << "the claims were not re-stamped under the new hash version";

  // A real change after the upgrade drifts the canary pool's node: drift is being checked.
  cluster.kubectl({"patch", "nodepool", "canary", "--type", "merge", "-p",
                   R"({"spec":{"template":{"metadata":{"labels":{"tier":"canary-2"}}}}})"});
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        for (const auto& claim : cluster.nodeClaims()) {
          const auto* pool = &claim.metadata.labels;
          if (pool->contains("karpenter.sh/nodepool") &&
              pool->at("karpenter.sh/nodepool") == "canary" && isDrifted(claim)) {
            return true;
          }
        }
        return false;
      },
      60s))
      << "the canary's node never drifted after its pool changed";

  // Not one node of the upgraded pool drifted or was replaced.
  std::set<std::string> names;
  for (const auto& claim : cluster.nodeClaims()) {
    if (claim.metadata.labels.at("karpenter.sh/nodepool") == "default") {
      EXPECT_FALSE(isDrifted(claim)) << claim.metadata.name;
      EXPECT_FALSE(claim.metadata.annotations.contains(api::karpenter::kDisruptionAnnotation));
      names.insert(claim.metadata.name);
    }
  }
  std::set<std::string> launched;
  for (const auto& claim : before) {
    if (claim.metadata.labels.at("karpenter.sh/nodepool") == "default") {
      launched.insert(claim.metadata.name);
    }
  }
  EXPECT_EQ(names, launched);
  EXPECT_EQ(launched.size(), 3u);
}

TEST(DriftSafety, KilledMidReplacementTheControllerNeverLosesOrDoublesANode) {
  EmbeddedCluster cluster;
  const std::vector<std::string> flags = {
      "--disruption-poll-interval", "1", "--gc-interval", "2", "--gc-grace", "5"};
  cluster.startControllerProcess(flags);
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", "-"}, testing::nodePoolWithBudget("1"));
  cluster.kubectl({"apply", "-f", "-"}, testing::kSpreadWorkload);
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 3); }, 120s));
  std::set<std::string> original;
  for (const auto& claim : cluster.nodeClaims()) {
    original.insert(claim.metadata.name);
  }

  // A static change: every node drifts.
  cluster.kubectl({"patch", "ec2nodeclass", "default", "--type", "merge", "-p",
                   R"({"spec":{"userData":"#!/bin/bash\necho v2\n"}})"});

  // Kill at each phase of a command the first time it is seen, and every few looks besides.
  std::set<std::string> killedIn;
  std::map<std::string, std::vector<std::string>> replacementsOf;  // candidate -> replacements
  std::map<std::string, bool> initialized;
  int looks = 0;
  int kills = 0;
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        ++looks;
        const auto claims = cluster.nodeClaims();
        std::map<std::string, const api::karpenter::NodeClaim*> byName;
        for (const auto& claim : claims) {
          byName[claim.metadata.name] = &claim;
          initialized[claim.metadata.name] =
              controllers::nodeclaim::isTrue(claim.status.conditions, api::karpenter::kInitialized);
          auto replaces = claim.metadata.annotations.find(api::karpenter::kReplacesAnnotation);
          if (replaces != claim.metadata.annotations.end()) {
            auto& list = replacementsOf[replaces->second];
            if (std::find(list.begin(), list.end(), claim.metadata.name) == list.end()) {
              list.push_back(claim.metadata.name);
            }
          }
        }
        // One pod per node: every candidate needs exactly one replacement, ever.
        for (const auto& [candidate, list] : replacementsOf) {
          EXPECT_LE(list.size(), 1u) << candidate << " was replaced twice";
          // A candidate gone has its replacement, and it was up before the candidate went.
          if (!byName.contains(candidate) && original.contains(candidate)) {
            for (const auto& r : list) {
              EXPECT_TRUE(byName.contains(r) && initialized[r])
                  << candidate << " is gone but its replacement " << r << " is not up";
            }
          }
        }
        for (const auto& claim : claims) {
          auto command = claim.metadata.annotations.find(api::karpenter::kDisruptionAnnotation);
          if (command == claim.metadata.annotations.end()) {
            continue;
          }
          const std::string phase =
              api::Json::parse(command->second, nullptr, false).value("phase", "");
          if (!killedIn.contains(phase) || (looks % 7 == 0 && kills < 8)) {
            killedIn.insert(phase);
            ++kills;
            cluster.killControllerProcess();
            cluster.startControllerProcess(flags);
            break;
          }
        }
        for (const auto& name : original) {
          if (byName.contains(name)) {
            return false;
          }
        }
        return allPodsRunning(cluster, 3);
      },
      300s))
      << "the drifted nodes were not all replaced";
  EXPECT_GE(kills, 2) << "the controller was not killed mid-replacement";
  const auto final = cluster.nodeClaims();
  EXPECT_EQ(final.size(), 3u);
  for (const auto& claim : final) {
    EXPECT_FALSE(isDrifted(claim)) << claim.metadata.name;
  }
}

}  // namespace
}  // namespace nodewright::e2e
