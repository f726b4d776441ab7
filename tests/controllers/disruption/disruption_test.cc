#include <algorithm>
#include <map>

#include "controllers/disruption/disruption_env.h"

// Replace-then-delete: a drifted node is tainted, replaced, and deleted only once its
// replacements are Initialized; a replacement that fails gives the command up; budgets and
// do-not-disrupt hold candidates back.
namespace nodewright::controllers::disruption::testing {
namespace {

TEST_F(DisruptionEnv, ADriftedNodeIsReplacedBeforeItIsDeleted) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);

  PassReport first = pass();
  EXPECT_EQ(first.started, std::vector<std::string>{"old"});
  auto started = command("old");
  ASSERT_TRUE(started);
  EXPECT_EQ(started->reason, "Drifted");
  EXPECT_EQ(started->phase, kPhaseReplacing);
  ASSERT_EQ(started->replacements.size(), 1u);
  EXPECT_EQ(replacementsOf("old"), started->replacements);
  EXPECT_TRUE(tainted("old"));

  // Not initialized yet: the candidate stays, however often the controller looks.
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(pass().deleted.empty());
  }
  EXPECT_TRUE(claim("old"));
  EXPECT_EQ(claims().size(), 2u);

  initialize(started->replacements[0]);
  PassReport last = pass();
  EXPECT_EQ(last.deleted, std::vector<std::string>{"old"});
  EXPECT_FALSE(claim("old"));
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(DisruptionEnv, AnEmptyDriftedNodeIsDeletedWithoutAReplacement) {
  addPool("default");
  addNode("empty", "default", 0, /*drifted=*/true);
  PassReport report = pass();
  EXPECT_EQ(report.deleted, std::vector<std::string>{"empty"});
  EXPECT_TRUE(claims().empty());
}

TEST_F(DisruptionEnv, PodsThatFitElsewhereNeedNoReplacement) {
  addPool("default");
  addNode("drifted", "default", 1, /*drifted=*/true);
  addNode("roomy", "default", 0, /*drifted=*/false);
  PassReport report = pass();
  EXPECT_EQ(report.deleted, std::vector<std::string>{"drifted"});
  EXPECT_EQ(claims().size(), 1u);
}

// A claim still in flight (the provisioner's, for pending pods) may never come up: the
// candidate's pods get a replacement of their own rather than a place on it.
TEST_F(DisruptionEnv, AClaimInFlightIsNoRoomForACandidatesPods) {
  addPool("default", {}, [](NodePool& pool) {
    pool.spec.disruption.budgets = {api::karpenter::Budget{{}, "100%", "", std::nullopt}};
  });
  NodeClaim inFlight;
  inFlight.apiVersion = "karpenter.sh/v1";
  inFlight.kind = "NodeClaim";
  inFlight.metadata.name = "default-pending";
  inFlight.metadata.labels = {{api::karpenter::kNodePoolLabel, "default"}};
  inFlight.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  inFlight.spec.resources.requests = {{"cpu", fixture::q("2")}, {"memory", fixture::q("8Gi")}};
  ASSERT_TRUE(kube::Typed<NodeClaim>(*client_).create(inFlight));
  addNode("old", "default", 2, /*drifted=*/true);

  PassReport report = pass();
  EXPECT_TRUE(report.deleted.empty());
  EXPECT_TRUE(claim("old"));
  ASSERT_TRUE(command("old"));
  EXPECT_EQ(command("old")->replacements.size(), 1u);
}

// Two commands at once: each candidate's pods get their own replacements, never the other's.
TEST_F(DisruptionEnv, OverlappingCommandsEachReplaceOnlyTheirOwnPods) {
  addPool("default", {}, [](NodePool& pool) {
    pool.spec.disruption.budgets = {api::karpenter::Budget{{}, "100%", "", std::nullopt}};
  });
  addNode("a", "default", 2, /*drifted=*/true);
  pass();
  ASSERT_TRUE(command("a"));
  addNode("b", "default", 2, /*drifted=*/true);
  pass();
  ASSERT_TRUE(command("b"));
  EXPECT_EQ(command("a")->replacements.size(), 1u);
  EXPECT_EQ(command("b")->replacements.size(), 1u);
  EXPECT_EQ(claims().size(), 4u);  // a, b and one replacement each
}

// A claim under a replacement's recorded name that does not replace the candidate is not its
// replacement: the command is given up rather than the candidate deleted.
TEST_F(DisruptionEnv, AForeignClaimUnderAReplacementNameIsNotTakenForIt) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  Command recorded;
  recorded.reason = kReasonDrifted;
  recorded.phase = kPhaseReplacing;
  recorded.started = std::chrono::time_point_cast<std::chrono::seconds>(clock_.now());
  recorded.replacements = {"default-other"};
  addNode("default-other", "default", 0, /*drifted=*/false);  // up, but someone else's
  auto updated = kube::updateWithRetry(
      *client_, kube::kindOf<NodeClaim>(client_->registry()), "", "old", [&](api::Object& o) {
        o.as<NodeClaim>()->metadata.annotations[api::karpenter::kDisruptionAnnotation] =
            encode(recorded);
        return true;
      });
  ASSERT_TRUE(updated);
  PassReport report = pass();
  EXPECT_EQ(report.gaveUp, std::vector<std::string>{"old"});
  EXPECT_TRUE(claim("old"));
  EXPECT_TRUE(claim("default-other"));  // not ours to delete either
}

TEST_F(DisruptionEnv, AFailedReplacementGivesTheCommandUpAndUntaints) {
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  pass();
  auto started = command("old");
  ASSERT_TRUE(started && started->replacements.size() == 1);
  // The launch failed (insufficient capacity): the lifecycle deleted the replacement.
  ASSERT_TRUE(kube::Typed<NodeClaim>(*client_).remove("", started->replacements[0]));
  clock_.advance(31s);  // past the cache lag a just-created replacement is allowed

  PassReport report = pass();
  EXPECT_EQ(report.gaveUp, std::vector<std::string>{"old"});
  EXPECT_TRUE(claim("old"));
  EXPECT_FALSE(command("old"));
  EXPECT_FALSE(tainted("old"));
}

TEST_F(DisruptionEnv, AReplacementThatNeverInitializesTimesOut) {
  options_.orchestration.replacementTimeout = 10min;
  controller_ = newController();
  addPool("default");
  addNode("old", "default", 2, /*drifted=*/true);
  pass();
  ASSERT_TRUE(command("old"));
  clock_.advance(9min);
  EXPECT_TRUE(pass().gaveUp.empty());
  clock_.advance(2min);
  EXPECT_EQ(pass().gaveUp, std::vector<std::string>{"old"});
  EXPECT_FALSE(tainted("old"));
  EXPECT_TRUE(claim("old"));
}

TEST_F(DisruptionEnv, ADoNotDisruptPodBlocksDrift) {
  addPool("default");
  addNode("old", "default", 1, /*drifted=*/true);
  auto pod = kube::Typed<Pod>(*client_).get("default", "old-pod-0");
  ASSERT_TRUE(pod);
  pod->metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(kube::Typed<Pod>(*client_).update(*pod));
  PassReport report = pass();
  EXPECT_TRUE(report.started.empty());
  ASSERT_EQ(report.blocked.size(), 1u);
  EXPECT_NE(report.blocked[0].find("do-not-disrupt"), std::string::npos) << report.blocked[0];
  EXPECT_FALSE(command("old"));
}

TEST_F(DisruptionEnv, APodThatFitsNowhereBlocksTheCommand) {
  addPool("default");
  addNode("old", "default", 1, /*drifted=*/true);
  bindPod("big", "3", "old");  // no instance type has 3 cpu
  PassReport report = pass();
  EXPECT_TRUE(report.started.empty());
  EXPECT_FALSE(command("old"));
  EXPECT_FALSE(tainted("old"));
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(DisruptionEnv, AnEmptyNodeGoesAfterConsolidateAfterUnlessPodsWait) {
  addPool("default", {},
          [](NodePool& pool) { pool.spec.disruption.consolidateAfter = core::Duration(5min); });
  addNode("idle", "default", 0, /*drifted=*/false);
  EXPECT_TRUE(pass().started.empty());  // just initialized: its pods may be on their way
  clock_.advance(5min);
  EXPECT_TRUE(pass().started.empty());  // within the grace after initialization
  // A pod waiting for a node holds every empty node back.
  Pod waiting = fixture::pod("waiting", "100m", "64Mi");
  waiting.apiVersion = "v1";
  waiting.kind = "Pod";
  waiting.metadata.namespace_ = "default";
  waiting.spec.containers[0].image = "registry.k8s.io/pause:3.9";
  ASSERT_TRUE(kube::Typed<Pod>(*client_).create(waiting));
  clock_.advance(1min);
  EXPECT_TRUE(pass().started.empty());
  kube::DeleteOptions now;
  now.gracePeriodSeconds = 0;
  ASSERT_TRUE(kube::Typed<Pod>(*client_).remove("default", "waiting", now));
  PassReport report = pass();
  EXPECT_EQ(report.deleted, std::vector<std::string>{"idle"});
  EXPECT_EQ(command("idle"), std::nullopt);
  EXPECT_FALSE(claim("idle"));
}

TEST_F(DisruptionEnv, AnEmptyNodeOfAPoolThatNeverConsolidatesStays) {
  addPool("default");  // consolidateAfter: Never
  addNode("idle", "default", 0, /*drifted=*/false);
  clock_.advance(24h);
  EXPECT_TRUE(pass().started.empty());
  EXPECT_TRUE(claim("idle"));
}

TEST_F(DisruptionEnv, AnExpiredNodeIsReplacedEvenWithADoNotDisruptPod) {
  addPool("default");
  addNode("old", "default", 1, /*drifted=*/false,
          [](NodeClaim& claim) { claim.spec.expireAfter = core::Duration(1h); });
  auto pod = kube::Typed<Pod>(*client_).get("default", "old-pod-0");
  ASSERT_TRUE(pod);
  pod->metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(kube::Typed<Pod>(*client_).update(*pod));
  EXPECT_TRUE(pass().started.empty());
  clock_.advance(2h);
  PassReport report = pass();
  EXPECT_EQ(report.started, std::vector<std::string>{"old"});
  EXPECT_EQ(command("old")->reason, "Expired");
}

TEST_F(DisruptionEnv, TwentyPercentOfTenDriftedNodesDisruptsAtMostTwoAtOnce) {
  api::karpenter::Budget budget;
  budget.nodes = "20%";
  addPool("default", {budget});
  for (int i = 0; i < 10; ++i) {
    addNode("n" + std::to_string(i), "default", 2, /*drifted=*/true);
  }
  size_t most = 0;
  for (int round = 0; round < 40; ++round) {
    std::map<std::string, Command> before;
    for (const auto& c : claims()) {
      if (auto cmd = command(c.metadata.name)) {
        before[c.metadata.name] = *cmd;
      }
    }
    pass();
    for (const auto& [name, cmd] : before) {
      if (!claim(name) && !cmd.replacements.empty()) {
        drain(name, cmd.replacements[0]);
      }
    }
    size_t inCommand = 0;
    bool driftedLeft = false;
    for (const auto& c : claims()) {
      inCommand += c.metadata.annotations.contains(api::karpenter::kDisruptionAnnotation) ? 1 : 0;
      driftedLeft = driftedLeft || nodeclaim::isTrue(c.status.conditions, api::karpenter::kDrifted);
      // The replacements come up one pass after they are created.
      if (c.metadata.annotations.contains(api::karpenter::kReplacesAnnotation) &&
          !nodeclaim::isTrue(c.status.conditions, api::karpenter::kInitialized)) {
        initialize(c.metadata.name);
      }
    }
    most = std::max(most, inCommand);
    if (!driftedLeft) {
      break;
    }
  }
  EXPECT_EQ(most, 2u);
  const auto left = claims();
  EXPECT_EQ(left.size(), 10u);
  for (const auto& c : left) {
    EXPECT_FALSE(nodeclaim::isTrue(c.status.conditions, api::karpenter::kDrifted))
        << c.metadata.name;
  }
}

TEST_F(DisruptionEnv, AClosedMaintenanceWindowBlocksDrift) {
  // Drift may only happen during a window that opened an hour before "now" and lasted 30m.
  const auto now = core::Time(clock_.now()).point();
  const auto hourAgo = std::chrono::floor<std::chrono::hours>(now) - 1h;
  const std::time_t t = std::chrono::system_clock::to_time_t(hourAgo);
  std::tm utc{};
  gmtime_r(&t, &utc);
  api::karpenter::Budget window;
  window.nodes = "100%";
  window.reasons = {"Drifted"};
  window.schedule = "0 " + std::to_string(utc.tm_hour) + " * * *";
  window.duration = core::Duration(30min);
  addPool("default", {window});
  addNode("old", "default", 2, /*drifted=*/true);
  PassReport report = pass();
  EXPECT_TRUE(report.started.empty());
  ASSERT_EQ(report.blocked.size(), 1u);
  EXPECT_NE(report.blocked[0].find("budget"), std::string::npos) << report.blocked[0];
  EXPECT_FALSE(command("old"));
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
