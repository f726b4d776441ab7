#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "controllers/health/repair.h"
#include "one_pod_per_node.h"
#include "support/build_flavor.h"
#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Node auto-repair end to end: the node agent's kubelet-stopped fault turns a Node's Ready
// Unknown, and the repair controller (tolerations on an emulated clock 120 times faster, so 30
// emulated minutes are 15 real seconds) force-terminates its NodeClaim once 30 emulated minutes
// have passed, never before; the workload lands on a replacement. With 3 of 10 nodes NotReady,
// more than the NodePool's 20%, nothing is repaired and the NodePool's NodeRepairAllowed
// condition says why; once one recovers, the other two are repaired.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::EmbeddedCluster;
using testing::testdata;
using Clock = std::chrono::system_clock;

constexpr double kTimeScale = 120;
constexpr const char* kFault = "nodewright.sh/kubelet-fault";

double emulatedMinutes(Clock::duration real) {
  return std::chrono::duration<double>(real).count() * kTimeScale / 60;
}

const api::corev1::NodeCondition* readyOf(const api::corev1::Node& node) {
  return api::corev1::findCondition(node.status, "Ready");
}

class NodeRepairEndToEnd : public ::testing::Test {
 protected:
  // Starts the controllers and a workload of `replicas` pods, one per node, and waits until
  // every pod runs on a Ready node.
  void startWith(int replicas) {
    cluster_.startControllers([](cmd::ControllerSetOptions& o) {
      o.nodeRepair = true;  // FEATURE_GATES NodeRepair=true
      o.repair.timeScale = kTimeScale;
    });
    cluster_.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
    cluster_.kubectl({"apply", "-f", "-"}, largeNodePool("on-demand"));
    cluster_.kubectl({"apply", "-f", "-"}, onePodPerNode(replicas));
    ASSERT_TRUE(kube::testing::eventually(
        [&] {
          if (!testing::allPodsRunning(cluster_, static_cast<size_t>(replicas))) {
            return false;
          }
          auto nodes = cluster_.nodes();
          return nodes.size() == static_cast<size_t>(replicas) &&
                 std::all_of(nodes.begin(), nodes.end(), [](const auto& n) {
                   const auto* ready = readyOf(n);
                   return ready != nullptr && ready->status == "True";
                 });
        },
        120s))
        << "the workload never ran";
  }

  void stopKubelet(const std::string& node) {
    cluster_.kubectl({"annotate", "node", node, std::string(kFault) + "=stopped"});
  }
  void startKubelet(const std::string& node) {
    cluster_.kubectl({"annotate", "node", node, std::string(kFault) + "-"});
  }

  // NodeClaim name by its Node's name.
  std::map<std::string, api::karpenter::NodeClaim> claimsByNode() {
    std::map<std::string, api::karpenter::NodeClaim> out;
    for (auto& claim : cluster_.nodeClaims()) {
      if (!claim.status.nodeName.empty()) {
        out[claim.status.nodeName] = claim;
      }
    }
    return out;
  }

  // Whether the NodeClaim named `claim` is being deleted or gone.
  bool going(const std::string& claim) {
    for (const auto& c : cluster_.nodeClaims()) {
      if (c.metadata.name == claim) {
        return c.metadata.deletionTimestamp.has_value();
      }
    }
    return true;
  }

  std::optional<api::Condition> poolCondition() {
    auto pool = kube::Typed<api::karpenter::NodePool>(cluster_.client()).get("", "default");
    if (!pool) {
      return std::nullopt;
    }
    for (const auto& c : pool->status.conditions) {
      if (c.type == controllers::health::kNodeRepairCondition) {
        return c;
      }
    }
    return std::nullopt;
  }

  EmbeddedCluster cluster_;
};

TEST_F(NodeRepairEndToEnd, ANodeNotReadyIsReplacedAfterThirtyEmulatedMinutes) {
  ASSERT_NO_FATAL_FAILURE(startWith(2));
  const auto claims = claimsByNode();
  ASSERT_EQ(claims.size(), 2U);
  const std::string node = claims.begin()->first;
  const std::string claim = claims.begin()->second.metadata.name;
  stopKubelet(node);

  // The node lifecycle's Ready=Unknown, and when it turned.
  std::optional<Clock::time_point> since;
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        for (const auto& n : cluster_.nodes()) {
          const auto* ready = readyOf(n);
          if (n.metadata.name == node && ready != nullptr && ready->status == "Unknown") {
            since = Clock::time_point(std::chrono::duration_cast<Clock::duration>(
                ready->lastTransitionTime.point().time_since_epoch()));
            return true;
          }
        }
        return false;
      },
      10s))
      << node << " never turned NotReady";

  // Sampled every 50 ms (6 emulated seconds): the claim is deleted once, at 30 minutes.
  std::optional<Clock::time_point> repaired;
  const auto deadline = *since + 60s;
  while (Clock::now() < deadline) {
    const auto now = Clock::now();
    if (going(claim)) {
      repaired = now;
      break;
    }
    std::this_thread::sleep_for(50ms);  // the sampling period of the watch, not a wait for state
  }
  ASSERT_TRUE(repaired) << claim << " was not repaired within 120 emulated minutes";
  const double after = emulatedMinutes(*repaired - *since);
  // lastTransitionTime has microseconds; the toleration is whole seconds (30 min / 120 = 15 s).
  EXPECT_GE(after, 30.0) << claim << " was repaired after only " << after << " emulated minutes";
  if (test_support::kOptimisedBuild) {
    EXPECT_LT(after, 32.0) << claim << " was repaired only after " << after << " emulated minutes";
  }

  // The workload is back on two Ready nodes, the NotReady one gone.
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto nodes = cluster_.nodes();
        const bool oldGone = std::none_of(nodes.begin(), nodes.end(),
                                          [&](const auto& n) { return n.metadata.name == node; });
        return oldGone && testing::allPodsRunning(cluster_, 2) && claimsByNode().size() == 2;
      },
      60s))
      << "no replacement for " << node;
  const auto replacedAt = Clock::now();
  auto events = cluster_.kubectl({"get", "events", "-A", "-o", "jsonpath={.items[*].reason}"});
  EXPECT_EQ(events.find(controllers::health::kNodeRepairBlockedReason), std::string::npos);
  std::cout << fmt::format(
      "figures: NotReady node repaired {:.2f} emulated min after Ready turned Unknown "
      "(toleration 30); replacement running {:.2f} emulated min after that\n",
      after, emulatedMinutes(replacedAt - *repaired));
}

TEST_F(NodeRepairEndToEnd, ThreeOfTenNotReadyAreNotRepairedAndTheNodePoolSaysWhy) {
  ASSERT_NO_FATAL_FAILURE(startWith(10));
  const auto claims = claimsByNode();
  ASSERT_EQ(claims.size(), 10U);
  std::vector<std::string> sick;
  const auto faulted = Clock::now();  // before the first fault
  for (const auto& [node, claim] : claims) {
    if (sick.size() < 3) {
      sick.push_back(node);
      stopKubelet(node);
    }
  }

  // Once their toleration ends (15 real seconds), the repairs are due and blocked.
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto c = poolCondition();
        return c && c->status == "False";
      },
      60s))
      << "the NodePool never said its repairs are blocked";
  const auto blockedAt = Clock::now();
  EXPECT_GE(emulatedMinutes(blockedAt - faulted), 30.0);
  auto condition = poolCondition();
  ASSERT_TRUE(condition);
  EXPECT_EQ(condition->reason, controllers::health::kNodeRepairBlockedReason);
  EXPECT_NE(condition->message.find("3 of 10 nodes are unhealthy"), std::string::npos)
      << condition->message;
  EXPECT_NE(condition->message.find("20%"), std::string::npos) << condition->message;

  // Ten emulated minutes later (ten rechecks), still nothing repaired.
  std::this_thread::sleep_for(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(10 * 60 / kTimeScale)));  // the time under observation
  for (const auto& node : sick) {
    EXPECT_FALSE(going(claims.at(node).metadata.name)) << node << " was repaired while blocked";
  }
  EXPECT_EQ(cluster_.nodeClaims().size(), 10U);
  auto events = cluster_.kubectl({"get", "events", "-A", "-o",
                                  "jsonpath={range .items[?(@.reason==\"NodeRepairBlocked\")]}"
                                  "{.involvedObject.kind}={.message}{\"\\n\"}{end}"});
  EXPECT_NE(events.find("Node=more than 20% nodes are unhealthy in the nodepool"),
            std::string::npos)
      << events;
  EXPECT_NE(events.find("NodePool=more than 20% nodes are unhealthy in the nodepool"),
            std::string::npos)
      << events;
  std::cout << "condition: " << condition->status << " " << condition->reason << ": "
            << condition->message << "\n";

  // One recovers: 2 of 10 are within the limit, so the other two are repaired.
  startKubelet(sick[0]);
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        return going(claims.at(sick[1]).metadata.name) && going(claims.at(sick[2]).metadata.name);
      },
      60s))
      << "the two still NotReady were not repaired once within the limit";
  EXPECT_FALSE(going(claims.at(sick[0]).metadata.name)) << sick[0] << " recovered, yet repaired";
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto c = poolCondition();
        return c && c->status == "True" && testing::allPodsRunning(cluster_, 10);
      },
      90s))
      << "the NodePool's condition did not return to True, or the workload did not recover";
}

}  // namespace
}  // namespace nodewright::e2e
