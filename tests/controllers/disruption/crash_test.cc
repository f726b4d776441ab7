#include "controllers/disruption/disruption_env.h"

// Crash safety: the controller can die between any two steps of a command. A new controller
// (no memory, everything from the API) resumes from the record on the candidate, never deletes
// the candidate before its replacements are Initialized, and never creates a replacement twice.
namespace nodewright::controllers::disruption::testing {
namespace {

class CrashTest : public DisruptionEnv {
 protected:
  // Writes `command` on the claim as a controller would have just before dying.
  void recordCommand(const std::string& name, const Command& command) {
    auto updated = kube::updateWithRetry(
        *client_, kube::kindOf<NodeClaim>(client_->registry()), "", name, [&](api::Object& object) {
          object.as<NodeClaim>()->metadata.annotations[api::karpenter::kDisruptionAnnotation] =
              encode(command);
          return true;
        });
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  Command launching(const std::string& name) {
    Command command;
    command.reason = kReasonDrifted;
    command.phase = kPhaseLaunching;
    command.started = std::chrono::time_point_cast<std::chrono::seconds>(clock_.now());
    command.replacements = {
        replacementName("default", claim(name)->metadata.uid, command.started, 0)};
    return command;
  }
};

TEST_F(CrashTest, ACommandRecordedBeforeAnySideEffectIsCarriedOutAsRecorded) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  const Command recorded = launching("old");
  recordCommand("old", recorded);

  auto restarted = newController();
  PassReport report = pass(restarted.get());
  EXPECT_TRUE(report.started.empty());  // resumed, not started again
  EXPECT_EQ(replacementsOf("old"), recorded.replacements);
  EXPECT_TRUE(tainted("old"));
  EXPECT_EQ(command("old")->phase, kPhaseReplacing);
  EXPECT_EQ(claims().size(), 2u);
}

TEST_F(CrashTest, ReplacementsCreatedBeforeTheCrashAreNotCreatedAgain) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  pass();
  Command created = *command("old");
  ASSERT_EQ(created.replacements.size(), 1u);
  // Died after creating the replacement, before recording that it had.
  created.phase = kPhaseLaunching;
  recordCommand("old", created);

  for (int i = 0; i < 3; ++i) {
    auto restarted = newController();
    pass(restarted.get());
  }
  EXPECT_EQ(replacementsOf("old"), created.replacements);
  EXPECT_EQ(claims().size(), 2u);
  EXPECT_EQ(command("old")->phase, kPhaseReplacing);
  EXPECT_TRUE(claim("old"));
}

TEST_F(CrashTest, ACommandDeletingItsCandidateFinishesTheDeletion) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  pass();
  Command command = *this->command("old");
  initialize(command.replacements.at(0));
  command.phase = kPhaseDeleting;
  recordCommand("old", command);  // died before the delete went out
  auto restarted = newController();
  EXPECT_EQ(pass(restarted.get()).deleted, std::vector<std::string>{"old"});
  EXPECT_FALSE(claim("old"));
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(CrashTest, ANewControllerForEveryPassEndsWithOneReplacementAndTheCandidateGone) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  std::set<std::string> everCreated;
  for (int round = 0; round < 10 && claim("old"); ++round) {
    auto restarted = newController();
    pass(restarted.get());
    for (const auto& name : replacementsOf("old")) {
      everCreated.insert(name);
      // Never both: the candidate gone while its replacement is not up.
      if (!claim("old")) {
        EXPECT_TRUE(
            nodeclaim::isTrue(claim(name)->status.conditions, api::karpenter::kInitialized));
      }
    }
    if (round == 3) {
      for (const auto& name : everCreated) {
        initialize(name);
      }
    }
  }
  EXPECT_FALSE(claim("old"));
  EXPECT_EQ(everCreated.size(), 1u);
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(CrashTest, AnUnreadableRecordLeavesTheClaimAlone) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  auto updated = kube::updateWithRetry(
      *client_, kube::kindOf<NodeClaim>(client_->registry()), "", "old", [](api::Object& object) {
        object.as<NodeClaim>()->metadata.annotations[api::karpenter::kDisruptionAnnotation] =
            "{not json";
        return true;
      });
  ASSERT_TRUE(updated);
  PassReport report = pass();
  // Not a command to resume, and a claim carrying one is not started again either.
  EXPECT_TRUE(report.started.empty());
  EXPECT_EQ(claims().size(), 1u);
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
