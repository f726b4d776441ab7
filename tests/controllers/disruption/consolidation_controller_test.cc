#include <algorithm>
#include <map>
#include <utility>

#include "cloud/well_known_labels.h"
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

  // `onDemandOnly`: no spot, so that an m.large is never cheaper than another m.large (with
  // spot allowed, two half-used on-demand m.large are replaced by one spot m.large).
  void addConsolidatingPool(bool onDemandOnly = false) {
    addPool("default", {}, [onDemandOnly](NodePool& pool) {
      pool.spec.disruption.consolidationPolicy = kPolicyWhenEmptyOrUnderutilized;
      pool.spec.disruption.consolidateAfter = core::Duration(0s);
      pool.spec.disruption.budgets = {api::karpenter::Budget{{}, "100%", "", std::nullopt}};
      if (onDemandOnly) {
        pool.spec.template_.spec.requirements = {
            fixture::requirement(cloud::labels::kCapacityType, "In", {"on-demand"})};
      }
    });
  }

  // Three m.large nodes with one 900m pod each: together they fit one x.large, cheaper than
  // the three (and than any two of them with a third node).
  void addThreeHalfUsedNodes() {
    cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10),
                             fixture::instanceType("x.large", 4, 16, 30, 0.15)});
    addConsolidatingPool();
    for (const char* name : {"a", "b", "c"}) {
      addNode(name, "default", 1, /*drifted=*/false);
    }
  }

  // What a controller killed mid-command left on `claimName`.
  void recordCommand(const std::string& claimName, const Command& recorded) {
    auto updated = kube::updateWithRetry(
        *client_, kube::kindOf<NodeClaim>(client_->registry()), "", claimName,
        [&](api::Object& object) {
          object.as<NodeClaim>()->metadata.annotations[api::karpenter::kDisruptionAnnotation] =
              encode(recorded);
          return true;
        });
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  // A multi-node command as startGroup records it: `lead` creates the replacement, the others
  // wait for it.
  std::pair<Command, Command> groupCommands(const std::string& lead,
                                            const std::vector<std::string>& followers) {
    Command leading;
    leading.reason = kReasonUnderutilized;
    leading.phase = kPhaseLaunching;
    leading.started = std::chrono::time_point_cast<std::chrono::seconds>(clock_.now());
    leading.replacements = {
        replacementName("default", claim(lead)->metadata.uid, leading.started, 0)};
    leading.instanceTypes = {"x.large"};
    leading.capacityType = "on-demand";
    leading.consolidationType = "multi";
    leading.group = followers;
    Command following = leading;
    following.group.clear();
    following.lead = lead;
    return {leading, following};
  }

  std::map<std::string, std::vector<std::string>> requirementsOf(const NodeClaim& claim) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& r : claim.spec.requirements) {
      out[r.key] = r.values;
    }
    return out;
  }
};

TEST_F(ConsolidationControllerTest, DeletesAnUnderusedNodeAfterRevalidation) {
  addConsolidatingPool(/*onDemandOnly=*/true);
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

// Multi-node replace: every candidate carries a command, the lead's creates the one
// replacement, and none is deleted before that replacement is Initialized.
TEST_F(ConsolidationControllerTest, ReplacesSeveralNodesWithOneCheaperNode) {
  addThreeHalfUsedNodes();
  PassReport decided = pass();
  // x.large priced as spot, as the pool allows it.
  EXPECT_EQ(decided.consolidation,
            "decided: replace a, b, c ($0.3000/h) with one of x.large ($0.1050/h), saving "
            "$0.1950/h");
  EXPECT_EQ(metrics_.gauge("karpenter_voluntary_disruption_eligible_nodes", "", {"reason"})
                .with({"underutilized"})
                .value(),
            3);
  clock_.advance(kConsolidationTtl);
  PassReport started = pass();
  EXPECT_EQ(metrics_
                .counter("karpenter_voluntary_disruption_decisions_total", "",
                         {"decision", "reason", "consolidation_type"})
                .with({"replace", "underutilized", "multi"})
                .value(),
            1);
  ASSERT_EQ(started.started.size(), 3u) << started.consolidation;
  EXPECT_EQ(started.inFlight, 3u);
  const std::string lead = started.started.front();
  auto leading = command(lead);
  ASSERT_TRUE(leading);
  EXPECT_EQ(leading->consolidationType, "multi");
  EXPECT_EQ(leading->phase, kPhaseReplacing);
  EXPECT_EQ(leading->instanceTypes, std::vector<std::string>{"x.large"});
  EXPECT_EQ(leading->group,
            (std::vector<std::string>{started.started.begin() + 1, started.started.end()}));
  ASSERT_EQ(leading->replacements.size(), 1u);
  const std::string replacement = leading->replacements[0];
  for (size_t i = 1; i < started.started.size(); ++i) {
    auto following = command(started.started[i]);
    ASSERT_TRUE(following);
    EXPECT_EQ(following->lead, lead);
    EXPECT_EQ(following->replacements, leading->replacements);
    EXPECT_EQ(following->phase, kPhaseReplacing);
  }
  EXPECT_EQ(replacementsOf(lead), std::vector<std::string>{replacement});
  EXPECT_EQ(claims().size(), 4u);  // the three and one replacement
  EXPECT_EQ(requirementsOf(*claim(replacement))["node.kubernetes.io/instance-type"],
            std::vector<std::string>{"x.large"});
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_TRUE(tainted(name)) << name;
  }

  PassReport waiting = pass();
  EXPECT_TRUE(waiting.deleted.empty());
  EXPECT_EQ(waiting.inFlight, 3u);
  EXPECT_EQ(claims().size(), 4u);

  initialize(replacement);
  PassReport done = pass();
  std::sort(done.deleted.begin(), done.deleted.end());
  EXPECT_EQ(done.deleted, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(claims().size(), 1u);
  EXPECT_TRUE(claim(replacement));
}

// Killed after recording a follower, before the lead's command: the follower gives up and
// nothing is launched.
TEST_F(ConsolidationControllerTest, AFollowerWhoseLeadNeverRecordedGivesUp) {
  addThreeHalfUsedNodes();
  auto [leading, following] = groupCommands("a", {"b", "c"});
  recordCommand("b", following);

  auto restarted = newController();
  PassReport report = pass(restarted.get());
  EXPECT_EQ(report.gaveUp, std::vector<std::string>{"b"});
  EXPECT_FALSE(command("b"));
  EXPECT_FALSE(tainted("b"));
  EXPECT_EQ(claims().size(), 3u);
}

// Killed after recording the whole group, before creating the replacement: each restart
// resumes it, the replacement is created once, with the recorded type, and the group goes
// once it is Initialized.
TEST_F(ConsolidationControllerTest, AResumedMultiNodeCommandLaunchesOneReplacement) {
  addThreeHalfUsedNodes();
  auto [leading, following] = groupCommands("a", {"b", "c"});
  recordCommand("b", following);
  recordCommand("c", following);
  recordCommand("a", leading);
  const std::string replacement = leading.replacements[0];

  auto restarted = newController();
  PassReport resumed = pass(restarted.get());
  EXPECT_TRUE(resumed.started.empty());
  EXPECT_TRUE(resumed.gaveUp.empty());
  ASSERT_TRUE(claim(replacement));
  EXPECT_EQ(requirementsOf(*claim(replacement))["node.kubernetes.io/instance-type"],
            std::vector<std::string>{"x.large"});
  EXPECT_EQ(requirementsOf(*claim(replacement))["karpenter.sh/capacity-type"],
            std::vector<std::string>{"on-demand"});
  EXPECT_EQ(command("a")->phase, kPhaseReplacing);

  auto again = newController();
  PassReport second = pass(again.get());
  EXPECT_TRUE(second.gaveUp.empty());
  EXPECT_EQ(claims().size(), 4u);  // no second replacement
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_TRUE(tainted(name)) << name;
    ASSERT_TRUE(command(name)) << name;
    EXPECT_EQ(command(name)->phase, kPhaseReplacing) << name;
  }

  initialize(replacement);
  PassReport done = pass(again.get());
  std::sort(done.deleted.begin(), done.deleted.end());
  EXPECT_EQ(done.deleted, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(ConsolidationControllerTest, DropsADecisionThePodsOutgrew) {
  addConsolidatingPool(/*onDemandOnly=*/true);
  addNode("a", "default", 1, /*drifted=*/false);
  addNode("b", "default", 1, /*drifted=*/false);
  ASSERT_EQ(pass().consolidation, "decided: delete a ($0.1000/h), saving $0.1000/h");
  bindPod("late", "900m", "b");  // b is now full: a's pod would need a node of its own
  clock_.advance(kConsolidationTtl);
  PassReport stale = pass();
  // On demand only, that node would be another m.large: no saving left.
  EXPECT_EQ(stale.consolidation,
            "stale: no longer consolidatable: cheapest replacement $0.1000/h is not cheaper than "
            "$0.1000/h");
  EXPECT_TRUE(stale.started.empty());
  EXPECT_TRUE(claim("a"));
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
