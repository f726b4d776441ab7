#include <map>

#include "controllers/disruption/disruption_env.h"

// Consolidation in the controller's passes against the embedded API server: a decision waits
// 15 s, is re-validated, and is carried out through the replace-then-delete commands.
namespace nodewright::controllers::disruption::testing {
namespace {

class ConsolidationControllerTest : public DisruptionEnv {
 protected:
  void SetUp() override {
    options_.consolidation = true;
    DisruptionEnv::SetUp();
  }

  void addConsolidatingPool() {
    addPool("default", {}, [](NodePool& pool) {
      pool.spec.disruption.consolidationPolicy = kPolicyWhenEmptyOrUnderutilized;
      pool.spec.disruption.consolidateAfter = core::Duration(0s);
      pool.spec.disruption.budgets = {api::karpenter::Budget{{}, "100%", "", std::nullopt}};
    });
  }
};

TEST_F(ConsolidationControllerTest, DeletesAnUnderusedNodeAfterRevalidation) {
  addConsolidatingPool();
  addNode("a", "default", 1, /*drifted=*/false);
  addNode("b", "default", 1, /*drifted=*/false);

  // Both onto one new m.large would save nothing; a's pod fits on b.
  PassReport decided = pass();
  EXPECT_EQ(decided.consolidation, "decided: delete a ($0.1000/h), saving $0.1000/h");
  EXPECT_TRUE(decided.started.empty());

  clock_.advance(10s);
  EXPECT_EQ(pass().consolidation, "waiting to re-validate: a");
  EXPECT_TRUE(claim("a"));

  clock_.advance(5s);
  PassReport started = pass();
  EXPECT_EQ(started.consolidation, "started: delete a ($0.1000/h), saving $0.1000/h");
  EXPECT_EQ(started.deleted, std::vector<std::string>{"a"});
  EXPECT_FALSE(claim("a"));
  EXPECT_TRUE(claim("b"));
}

TEST_F(ConsolidationControllerTest, ReplacesWithTheDecidedCheaperTypeOnly) {
  cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10),
                           fixture::instanceType("s.small", 1, 4, 30, 0.04),
                           fixture::instanceType("s.medium", 1, 4, 30, 0.06)});
  addConsolidatingPool();
  addNode("a", "default", 1, /*drifted=*/false);

  PassReport decided = pass();
  EXPECT_EQ(decided.consolidation,
            "decided: replace a ($0.1000/h) with one of s.small, s.medium, m.large ($0.0280/h), "
            "saving $0.0720/h");
  clock_.advance(kConsolidationTtl);
  PassReport started = pass();
  EXPECT_EQ(started.started, std::vector<std::string>{"a"});
  auto command = this->command("a");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->reason, kReasonUnderutilized);
  EXPECT_EQ(command->consolidationType, "single");
  // Priced as spot, as the pool allows it: launched only as spot.
  EXPECT_EQ(command->instanceTypes, (std::vector<std::string>{"s.small", "s.medium", "m.large"}));
  EXPECT_EQ(command->capacityType, "spot");
  ASSERT_EQ(command->replacements.size(), 1u);
  auto replacement = claim(command->replacements[0]);
  ASSERT_TRUE(replacement);
  std::vector<std::string> types;
  for (const auto& r : replacement->spec.requirements) {
    if (r.key == "node.kubernetes.io/instance-type") {
      types = r.values;
    }
  }
  EXPECT_EQ(types, (std::vector<std::string>{"s.small", "s.medium", "m.large"}));
  // Replace first: the candidate stays until its replacement is Initialized.
  EXPECT_TRUE(claim("a"));
  EXPECT_TRUE(tainted("a"));
}

// Killed after recording a consolidation command, before creating its replacement: the next
// controller simulates the replacement again and narrows it to the recorded types.
TEST_F(ConsolidationControllerTest, AResumedCommandLaunchesOnlyTheDecidedTypes) {
  cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10),
                           fixture::instanceType("s.small", 1, 4, 30, 0.04)});
  addConsolidatingPool();
  addNode("a", "default", 1, /*drifted=*/false);
  Command recorded;
  recorded.reason = kReasonUnderutilized;
  recorded.phase = kPhaseLaunching;
  recorded.started = std::chrono::time_point_cast<std::chrono::seconds>(clock_.now());
  recorded.replacements = {
      replacementName("default", claim("a")->metadata.uid, recorded.started, 0)};
  recorded.instanceTypes = {"s.small"};
  recorded.capacityType = "on-demand";
  recorded.consolidationType = "single";
  auto updated = kube::updateWithRetry(
      *client_, kube::kindOf<NodeClaim>(client_->registry()), "", "a", [&](api::Object& object) {
        object.as<NodeClaim>()->metadata.annotations[api::karpenter::kDisruptionAnnotation] =
            encode(recorded);
        return true;
      });
  ASSERT_TRUE(updated) << updated.error().describe();

  auto restarted = newController();
  PassReport report = pass(restarted.get());
  EXPECT_TRUE(report.started.empty());  // resumed, not started again
  auto replacement = claim(recorded.replacements[0]);
  ASSERT_TRUE(replacement);
  std::map<std::string, std::vector<std::string>> requirements;
  for (const auto& r : replacement->spec.requirements) {
    requirements[r.key] = r.values;
  }
  EXPECT_EQ(requirements["node.kubernetes.io/instance-type"], std::vector<std::string>{"s.small"});
  EXPECT_EQ(requirements["karpenter.sh/capacity-type"], std::vector<std::string>{"on-demand"});
  EXPECT_EQ(command("a")->phase, kPhaseReplacing);
}

TEST_F(ConsolidationControllerTest, DropsADecisionThePodsOutgrew) {
  addConsolidatingPool();
  addNode("a", "default", 1, /*drifted=*/false);
  addNode("b", "default", 1, /*drifted=*/false);
  ASSERT_EQ(pass().consolidation, "decided: delete a ($0.1000/h), saving $0.1000/h");
  bindPod("late", "900m", "b");  // b is now full: a's pod would need a node of its own
  clock_.advance(kConsolidationTtl);
  PassReport stale = pass();
  EXPECT_EQ(stale.consolidation, "stale: the pods now need a new node");
  EXPECT_TRUE(stale.started.empty());
  EXPECT_TRUE(claim("a"));
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
