// Node repair's decisions on an injected clock: a node NotReady is tolerated for 30 minutes and
// then repaired; with 3 of 10 nodes NotReady nothing is repaired and the message says why.
#include "controllers/health/repair.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace nodewright::controllers::health {
namespace {

using namespace std::chrono_literals;

api::corev1::Node node(const std::string& name, const std::string& type = "Ready",
                       const std::string& status = "True", core::TimePoint since = {}) {
  api::corev1::Node n;
  n.metadata.name = name;
  api::corev1::NodeCondition c;
  c.type = type;
  c.status = status;
  c.lastTransitionTime = core::Time(since);
  n.status.conditions.push_back(c);
  return n;
}

class RepairTest : public ::testing::Test {
 protected:
  std::vector<api::corev1::Node> pool(int notReady, int total, core::TimePoint since) {
    std::vector<api::corev1::Node> out;
    for (int i = 0; i < total; ++i) {
      out.push_back(i < notReady ? node("n" + std::to_string(i), "Ready", "False", since)
                                 : node("n" + std::to_string(i)));
    }
    return out;
  }

  core::FakeClock clock_;
  const std::vector<RepairPolicy> policies_ = awsRepairPolicies();
};

TEST_F(RepairTest, ANotReadyNodeIsRepairedAfterThirtyMinutes) {
  const core::TimePoint since = clock_.now();
  auto nodes = pool(1, 10, since);
  Decision d = decide(nodes[0], nodes, policies_, clock_.now());
  EXPECT_EQ(d.verdict, Verdict::Tolerated);
  ASSERT_TRUE(d.unhealthy);
  EXPECT_EQ(d.unhealthy->repairAt, since + 30min);
  clock_.advance(30min - 1s);
  EXPECT_EQ(decide(nodes[0], nodes, policies_, clock_.now()).verdict, Verdict::Tolerated);
  clock_.advance(1s);
  d = decide(nodes[0], nodes, policies_, clock_.now());
  EXPECT_EQ(d.verdict, Verdict::Repair);
  EXPECT_EQ(d.message, "Ready False for 30 minutes");
  EXPECT_EQ(decide(nodes[1], nodes, policies_, clock_.now()).verdict, Verdict::Healthy);
}

TEST_F(RepairTest, UnknownReadinessCountsLikeFalse) {
  auto n = node("lost", "Ready", "Unknown", clock_.now());
  clock_.advance(31min);
  EXPECT_EQ(
      decide(n, {n, node("a"), node("b"), node("c"), node("d")}, policies_, clock_.now()).verdict,
      Verdict::Repair);
}

TEST_F(RepairTest, ThreeOfTenNotReadyBlocksEveryRepair) {
  auto nodes = pool(3, 10, clock_.now());
  clock_.advance(2h);
  for (int i = 0; i < 3; ++i) {
    Decision d = decide(nodes[i], nodes, policies_, clock_.now());
    EXPECT_EQ(d.verdict, Verdict::Blocked) << i;
    EXPECT_EQ(d.message,
              "3 of 10 nodes are unhealthy, more than 20% (up to 2 may be); no node is repaired");
  }
  // Two of ten are within the budget.
  auto fewer = pool(2, 10, clock_.now() - 2h);
  EXPECT_EQ(decide(fewer[0], fewer, policies_, clock_.now()).verdict, Verdict::Repair);
}

TEST_F(RepairTest, TheBudgetRoundsUp) {
  EXPECT_EQ(allowedUnhealthy(1), 1U);
  EXPECT_EQ(allowedUnhealthy(3), 1U);
  EXPECT_EQ(allowedUnhealthy(5), 1U);
  EXPECT_EQ(allowedUnhealthy(6), 2U);
  EXPECT_EQ(allowedUnhealthy(10), 2U);
  EXPECT_TRUE(repairAllowed(1, 3));
  EXPECT_FALSE(repairAllowed(2, 3));
}

TEST_F(RepairTest, TheConditionWhoseTolerationEndsFirstDecides) {
  // The node monitoring agent's accelerator condition is tolerated 10 minutes only.
  auto n = node("gpu", "Ready", "False", clock_.now());
  api::corev1::NodeCondition hw;
  hw.type = "AcceleratedHardwareReady";
  hw.status = "False";
  hw.lastTransitionTime = core::Time(clock_.now() + 5min);
  n.status.conditions.push_back(hw);
  auto u = unhealthyCondition(n, policies_);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->policy.conditionType, "AcceleratedHardwareReady");
  EXPECT_EQ(u->repairAt, clock_.now() + 15min);
  // True conditions and conditions no policy names are healthy.
  EXPECT_FALSE(unhealthyCondition(node("ok", "KernelReady", "True", clock_.now()), policies_));
  EXPECT_FALSE(unhealthyCondition(node("ok", "MemoryPressure", "True", clock_.now()), policies_));
}

}  // namespace
}  // namespace nodewright::controllers::health
