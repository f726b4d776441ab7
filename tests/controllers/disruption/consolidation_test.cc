#include <cmath>

#include <fmt/format.h>

#include "controllers/disruption/consolidation_env.h"

// Consolidation's decisions with exact outcomes: delete, replace, multi-node, spot-to-spot,
// Balanced, and the 15 s re-validation. Prices: c.large $0.25, c.xlarge $0.5, c.2xlarge $1.
namespace nodewright::controllers::disruption::testing {
namespace {

using ConsolidationTest = ConsolidationEnv;

TEST_F(ConsolidationTest, DeletesANodeWhosePodsFitOnTheOthers) {
  addPool("default");
  addNode("a", "default", "c.xlarge");
  addNode("b", "default", "c.xlarge");
  addPod("a-0", "a");
  addPod("b-0", "b");
  addPod("b-1", "b");

  // Both at once would need a c.xlarge, no cheaper than the c.xlarge kept: no multi-node.
  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::SingleNode);
  EXPECT_EQ(decision->reason, kReasonUnderutilized);
  EXPECT_EQ(decision->names(), std::vector<std::string>{"a"});
  EXPECT_TRUE(decision->isDelete());
  EXPECT_DOUBLE_EQ(decision->savings(), 0.5);
  EXPECT_EQ(decision->describe(), "delete a ($0.5000/h), saving $0.5000/h");
}

TEST_F(ConsolidationTest, ReplacesANodeWithOneCheaperNode) {
  addPool("default");
  addNode("a", "default", "c.2xlarge");
  addPod("a-0", "a");

  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::SingleNode);
  ASSERT_TRUE(decision->replacement);
  EXPECT_EQ(decision->replacementTypes, (std::vector<std::string>{"c.large", "c.xlarge"}));
  EXPECT_EQ(requirementValues(*decision->replacement, cloud::labels::kInstanceType),
            (std::vector<std::string>{"c.large", "c.xlarge"}));
  EXPECT_EQ(requirementValues(*decision->replacement, cloud::labels::kCapacityType),
            std::vector<std::string>{"on-demand"});
  EXPECT_DOUBLE_EQ(decision->currentPrice, 1.0);
  EXPECT_DOUBLE_EQ(decision->replacementPrice, 0.25);
  EXPECT_DOUBLE_EQ(decision->savings(), 0.75);
}

TEST_F(ConsolidationTest, KeepsANodeWithNoCheaperReplacementAndSaysWhy) {
  addPool("default");
  addNode("a", "default", "c.large");
  addPod("a-0", "a", "1500m");

  EXPECT_FALSE(decide());
  ASSERT_EQ(consolidator_->unconsolidatable().size(), 1u);
  EXPECT_EQ(consolidator_->unconsolidatable()[0].claim, "a");
  EXPECT_EQ(consolidator_->unconsolidatable()[0].why,
            "cheapest replacement $0.2500/h is not cheaper than $0.2500/h");
}

TEST_F(ConsolidationTest, MultiNodeTakesTheLargestPrefixThatFitsOnOneCheaperNode) {
  addPool("default");
  for (const char* name : {"a", "b", "c"}) {
    addNode(name, "default", "c.2xlarge");
    addPod(std::string(name) + "-0", name);
  }

  // Two go onto the third; all three onto one c.xlarge ($0.5 < the c.2xlarge's $1): the
  // binary search keeps the larger.
  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::MultiNode);
  EXPECT_EQ(decision->names(), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(decision->replacement);
  EXPECT_EQ(decision->replacementTypes, std::vector<std::string>{"c.xlarge"});
  EXPECT_DOUBLE_EQ(decision->savings(), 2.5);
}

TEST_F(ConsolidationTest, MultiNodeDeletesWhenTheRestHoldThePods) {
  addPool("default");
  for (const char* name : {"a", "b", "c"}) {
    addNode(name, "default", "c.xlarge");
    addPod(std::string(name) + "-0", name);
  }
  // All three need a c.xlarge: the same type as the nodes, so not worth it; two fit on the third.
  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::MultiNode);
  EXPECT_EQ(decision->names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(decision->isDelete());
  EXPECT_DOUBLE_EQ(decision->savings(), 1.0);
}

TEST_F(ConsolidationTest, MultiNodeStaysWithinTheUnderutilizedBudget) {
  addPool("default");
  for (const char* name : {"a", "b", "c"}) {
    addNode(name, "default", "c.2xlarge");
    addPod(std::string(name) + "-0", name);
  }
  room_[{"default", kReasonUnderutilized}] = 2;
  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::MultiNode);
  EXPECT_EQ(decision->names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(decision->isDelete());
}

TEST_F(ConsolidationTest, AnUnderutilizedBudgetOfZeroBlocksAllButEmptiness) {
  addPool("default");
  addNode("a", "default", "c.2xlarge");
  addNode("empty", "default", "c.large");
  addPod("a-0", "a");
  room_[{"default", kReasonUnderutilized}] = 0;

  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::Emptiness);
  EXPECT_EQ(decision->names(), std::vector<std::string>{"empty"});

  room_[{"default", kReasonEmpty}] = 0;
  EXPECT_FALSE(decide());
  ASSERT_EQ(consolidator_->unconsolidatable().size(), 2u);
  EXPECT_EQ(consolidator_->unconsolidatable()[0].why,
            "NodePool \"default\" allows no Underutilized disruption now");
}

TEST_F(ConsolidationTest, EmptinessDeletesEveryEmptyNodeItsBudgetAllows) {
  addPool("default", kPolicyWhenEmpty);
  addNode("a", "default", "c.2xlarge");
  addNode("e1", "default", "c.large");
  addNode("e2", "default", "c.large");
  addNode("e3", "default", "c.large");
  addPod("a-0", "a");
  room_[{"default", kReasonEmpty}] = 2;

  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::Emptiness);
  EXPECT_EQ(decision->reason, kReasonEmpty);
  EXPECT_EQ(decision->names(), (std::vector<std::string>{"e1", "e2"}));
  EXPECT_DOUBLE_EQ(decision->savings(), 0.5);
}

TEST_F(ConsolidationTest, WhenEmptyNeverReplacesAnUnderusedNode) {
  addPool("default", kPolicyWhenEmpty);
  addNode("a", "default", "c.2xlarge");
  addPod("a-0", "a");
  EXPECT_FALSE(decide());
  EXPECT_TRUE(consolidator_->unconsolidatable().empty());
}

// Spot candidates: types t.00 .. t.19 (4 cpu, spot $0.07 .. $0.203) are cheaper than the
// candidate's spot c.huge ($0.7).
class SpotToSpotTest : public ConsolidationEnv {
 protected:
  void SetUp() override {
    ConsolidationEnv::SetUp();
    types_.clear();
    for (int i = 0; i < 20; ++i) {
      types_.push_back(fixture::instanceType(fmt::format("t.{:02d}", i), 4, 8, 30, 0.1 + 0.01 * i));
    }
    types_.push_back(fixture::instanceType("c.huge", 16, 64, 30, 1.0));
    addPool("spot", kPolicyWhenEmptyOrUnderutilized, [](NodePool& pool) {
      pool.spec.template_.spec.requirements = {
          fixture::requirement(cloud::labels::kCapacityType, "In", {"spot"})};
    });
    addNode("a", "spot", "c.huge", cloud::kCapacityTypeSpot);
    addPod("a-0", "a");
  }
};

TEST_F(SpotToSpotTest, IsOffWithoutTheFeatureFlag) {
  EXPECT_FALSE(decide());
  ASSERT_EQ(consolidator_->unconsolidatable().size(), 1u);
  EXPECT_EQ(consolidator_->unconsolidatable()[0].why,
            "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
}

TEST_F(SpotToSpotTest, LaunchesWithOnlyTheFifteenCheapestSpotTypes) {
  options_.spotToSpot = true;
  auto decision = decide();
  ASSERT_TRUE(decision);
  ASSERT_TRUE(decision->replacement);
  ASSERT_EQ(decision->replacementTypes.size(), kMinSpotToSpotTypes);
  EXPECT_EQ(decision->replacementTypes.front(), "t.00");
  EXPECT_EQ(decision->replacementTypes.back(), "t.14");
  EXPECT_EQ(requirementValues(*decision->replacement, cloud::labels::kCapacityType),
            std::vector<std::string>{"spot"});
  EXPECT_NEAR(decision->replacementPrice, 0.07, 1e-9);
}

TEST_F(SpotToSpotTest, NeedsFifteenCheaperSpotTypes) {
  options_.spotToSpot = true;
  types_.erase(types_.begin() + 14, types_.begin() + 20);  // t.00 .. t.13 remain
  auto decision = decide();
  EXPECT_FALSE(decision);
  ASSERT_EQ(consolidator_->unconsolidatable().size(), 1u);
  EXPECT_EQ(consolidator_->unconsolidatable()[0].why,
            "SpotToSpotConsolidation requires 15 cheaper instance type options than the current "
            "candidate to consolidate, got 14");
}

TEST(BalancedScoreTest, ApprovesAtOneOverKExactly) {
  const PoolTotals totals{4.0, 8.0};
  // savings 1/4 of the pool's cost for 1/2 of its disruption: score 0.5 = 1/k.
  BalancedScore at = scoreMove(1.0, 4.0, totals, 2);
  EXPECT_DOUBLE_EQ(at.score, 0.5);
  EXPECT_DOUBLE_EQ(at.threshold, 0.5);
  EXPECT_TRUE(at.approved);
  BalancedScore below = scoreMove(std::nextafter(1.0, 0.0), 4.0, totals, 2);
  EXPECT_LT(below.score, 0.5);
  EXPECT_FALSE(below.approved);
}

TEST(BalancedScoreTest, NeverApprovesNoSavingsAndAlwaysApprovesAFreePool) {
  EXPECT_FALSE(scoreMove(0.0, 1.0, PoolTotals{1.0, 1.0}).approved);
  EXPECT_FALSE(scoreMove(1.0, 1.0, PoolTotals{0.0, 1.0}).approved);
  EXPECT_TRUE(scoreMove(0.01, 1.0, PoolTotals{1.0, 0.0}).approved);
}

// a: a c.xlarge ($0.5) with two pods that cost 10 each to evict; c: a full c.2xlarge.
// Replacing a by a c.large saves $0.25 of the pool's $1.5 (1/6) for 21/30 of its disruption:
// score 0.238 < 0.5. WhenEmptyOrUnderutilized takes the same move.
class BalancedTest : public ConsolidationEnv, public ::testing::WithParamInterface<const char*> {};

TEST_P(BalancedTest, WeighsSavingsAgainstDisruption) {
  addPool("default", GetParam());
  addNode("a", "default", "c.xlarge");
  addNode("c", "default", "c.2xlarge");
  for (int i = 0; i < 2; ++i) {
    addPod(fmt::format("a-{}", i), "a", "1", [](Pod& pod) { pod.spec.priority = 9 << 25; });
  }
  for (int i = 0; i < 8; ++i) {
    addPod(fmt::format("c-{}", i), "c");
  }
  auto decision = decide();
  EXPECT_DOUBLE_EQ(candidates_->totals.at("default").cost, 1.5);
  EXPECT_DOUBLE_EQ(candidates_->totals.at("default").disruption, 30.0);
  if (std::string(GetParam()) == kPolicyBalanced) {
    EXPECT_FALSE(decision);
    ASSERT_EQ(consolidator_->unconsolidatable().size(), 2u);
    EXPECT_EQ(consolidator_->unconsolidatable()[1].claim, "a");
    EXPECT_EQ(consolidator_->unconsolidatable()[1].why,
              "Balanced score 0.238 for NodePool \"default\" is below 1/2 (saves $0.2500/h)");
  } else {
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->names(), std::vector<std::string>{"a"});
    EXPECT_EQ(decision->replacementTypes, std::vector<std::string>{"c.large"});
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, BalancedTest,
                         ::testing::Values(kPolicyBalanced, kPolicyWhenEmptyOrUnderutilized),
                         [](const auto& info) { return std::string(info.param); });

TEST_F(ConsolidationTest, BalancedApprovesACheapMove) {
  addPool("default", kPolicyBalanced);
  addNode("a", "default", "c.2xlarge");
  addNode("b", "default", "c.large");
  addPod("a-0", "a");
  addPod("b-0", "b");
  addPod("b-1", "b");
  // Both onto one c.xlarge: saves $0.75 of the pool's $1.25 (0.6) for all of its disruption
  // (5 of 5): score 0.6.
  auto decision = decide();
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->method, Method::MultiNode);
  EXPECT_EQ(decision->names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(decision->replacementTypes, std::vector<std::string>{"c.xlarge"});
  ASSERT_TRUE(decision->score);
  EXPECT_NEAR(decision->score->score, 0.6, 1e-9);
  EXPECT_TRUE(decision->score->approved);
}

TEST_F(ConsolidationTest, RevalidationWaitsFifteenSecondsThenAcceptsAnUnchangedCluster) {
  addPool("default");
  addNode("a", "default", "c.xlarge");
  addNode("b", "default", "c.xlarge");
  addPod("a-0", "a");
  addPod("b-0", "b");
  addPod("b-1", "b");
  auto decision = decide();
  ASSERT_TRUE(decision);
  // Taken now: refresh() rebuilds the cluster view the decision points into.
  const DecisionRecord record = decision->record();

  clock_.advance(14s);
  refresh();
  EXPECT_EQ(validate(record, *consolidator_, *candidates_, room(), clock_.now()).validity,
            Validity::Wait);
  clock_.advance(1s);
  refresh();
  Validation valid = validate(record, *consolidator_, *candidates_, room(), clock_.now());
  EXPECT_EQ(valid.validity, Validity::Valid) << valid.why;
}

TEST_F(ConsolidationTest, RevalidationRefusesAStaleDecision) {
  addPool("default");
  addNode("a", "default", "c.xlarge");
  addNode("b", "default", "c.xlarge");
  addPod("a-0", "a");
  addPod("b-0", "b");
  addPod("b-1", "b");
  auto decision = decide();
  ASSERT_TRUE(decision);
  // Taken now: refresh() rebuilds the cluster view the decision points into.
  const DecisionRecord record = decision->record();
  ASSERT_TRUE(decision->isDelete());

  // Meanwhile b filled up: a's pod would now need a node of its own.
  addPod("b-2", "b");
  addPod("b-3", "b");
  clock_.advance(kConsolidationTtl);
  refresh();
  Validation stale = validate(record, *consolidator_, *candidates_, room(), clock_.now());
  EXPECT_EQ(stale.validity, Validity::Stale);
  EXPECT_EQ(stale.why, "the pods now need a new node");
}

TEST_F(ConsolidationTest, RevalidationRefusesANodeThatIsNoLongerACandidate) {
  addPool("default", kPolicyWhenEmpty);
  addNode("e", "default", "c.large");
  auto decision = decide();
  ASSERT_TRUE(decision);
  // Taken now: refresh() rebuilds the cluster view the decision points into.
  const DecisionRecord record = decision->record();
  addPod("late", "e", "1", [](Pod& pod) {
    pod.metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
  });
  clock_.advance(kConsolidationTtl);
  refresh();
  Validation stale = validate(record, *consolidator_, *candidates_, room(), clock_.now());
  EXPECT_EQ(stale.validity, Validity::Stale);
  EXPECT_EQ(stale.why, "e is no longer a candidate: pod default/late is annotated do-not-disrupt");
}

TEST_F(ConsolidationTest, RevalidationRefusesAnEmptyNodeThatGotAPod) {
  addPool("default", kPolicyWhenEmpty);
  addNode("e", "default", "c.large");
  auto decision = decide();
  ASSERT_TRUE(decision);
  // Taken now: refresh() rebuilds the cluster view the decision points into.
  const DecisionRecord record = decision->record();
  addPod("late", "e");
  clock_.advance(kConsolidationTtl);
  refresh();
  Validation stale = validate(record, *consolidator_, *candidates_, room(), clock_.now());
  EXPECT_EQ(stale.validity, Validity::Stale);
  EXPECT_EQ(stale.why, "e is no longer empty");
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
