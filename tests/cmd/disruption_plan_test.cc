// `nodewright disruption plan` as the built binary against the embedded API server and the EC2
// emulator: the candidates in the controller's order, each disrupted or blocked as a pass would
// decide now, the commands in flight, and nothing written.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include <fmt/format.h>

#include "cmd/cmd_test_util.h"
#include "api/core/policy.h"
#include "cmd/inspect_env.h"
#include "controllers/disruption/budgets.h"
#include "controllers/disruption/command.h"

namespace nodewright::cmd::testing {
namespace {

using controllers::disruption::allowedDisruptions;

class DisruptionPlanTest : public InspectEnv {
 protected:
  // What `pool`'s budgets say for drift over `nodes` nodes (no schedules: the time is moot).
  std::string budgetFor(const NodePool& pool, int nodes) {
    auto verdict = allowedDisruptions(pool.spec.disruption, controllers::disruption::kReasonDrifted,
                                      nodes, core::systemClock().now());
    EXPECT_TRUE(verdict) << verdict.error().message();
    return verdict ? verdict->description : "";
  }
};

constexpr const char* kWhy = "why NodeClassDrifted: NodeClass: spec.userData changed";

TEST_F(DisruptionPlanTest, ABudgetOfOneNodeDisruptsOneDriftedClaimAndBlocksTheOtherWritingNothing) {
  const NodePool pool = addPool({"1"});
  addClaim("a", pool, "aws:///us-east-1a/i-0aaaaaaaaaaaaaaaa", true);
  addClaim("b", pool, "aws:///us-east-1a/i-0bbbbbbbbbbbbbbbb", true);
  const auto claimsBefore = versions<NodeClaim>();
  const auto nodesBefore = versions<Node>();
  const auto poolsBefore = versions<NodePool>();

  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  // Both were created within the same second: which one goes first is the pass's to choose.
  const std::string first = out[0].starts_with("nodeclaim a ") ? "a" : "b";
  const std::string second = first == "a" ? "b" : "a";
  const std::string budget = budgetFor(pool, 2);
  EXPECT_EQ(out[0], "nodeclaim " + first + "  node node-" + first +
                        "  nodepool default  reason Drifted  " + kWhy);
  EXPECT_EQ(out[1], "  disrupt  budget: " + budget);
  EXPECT_EQ(out[2], "  delete: empty");
  EXPECT_EQ(out[3], "nodeclaim " + second + "  node node-" + second +
                        "  nodepool default  reason Drifted  " + kWhy);
  EXPECT_EQ(out[4], "  blocked  budget exhausted: " + budget);
  EXPECT_EQ(out[5], "plan: 1 to disrupt, 1 blocked, 0 in flight");

  EXPECT_EQ(versions<NodeClaim>(), claimsBefore);
  EXPECT_EQ(versions<Node>(), nodesBefore);
  EXPECT_EQ(versions<NodePool>(), poolsBefore);
}

TEST_F(DisruptionPlanTest, CommandsInFlightAreListedAndUseTheirPoolsBudget) {
  const NodePool pool = addPool({"1"});
  controllers::disruption::Command command;
  command.reason = controllers::disruption::kReasonDrifted;
  command.phase = controllers::disruption::kPhaseReplacing;
  command.replacements = {"default-r1"};
  command.started = std::chrono::floor<std::chrono::seconds>(core::systemClock().now());
  command.budget = "budgets[0] (nodes 1)";
  addClaim("busy", pool, "aws:///us-east-1a/i-0cccccccccccccccc", true,
           {{api::karpenter::kDisruptionAnnotation, controllers::disruption::encode(command)}});
  addClaim("waiting", pool, "aws:///us-east-1a/i-0dddddddddddddddd", true);

  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u) << r.out;
  EXPECT_EQ(out[0], std::string("nodeclaim waiting  node node-waiting  nodepool default  "
                                "reason Drifted  ") +
                        kWhy);
  EXPECT_EQ(out[1], "  blocked  budget exhausted: " + budgetFor(pool, 2));
  EXPECT_EQ(out[2],
            "in flight: nodeclaim busy  node node-busy  phase Replacing  reason Drifted  "
            "replacements default-r1  budget budgets[0] (nodes 1)");
  EXPECT_EQ(out[3], "plan: 0 to disrupt, 1 blocked, 1 in flight");
}

TEST_F(DisruptionPlanTest, ADoNotDisruptNodeIsBlockedAndANodeWithPodsIsReplaced) {
  const NodePool pool = addPool({"100%"});
  addClaim("kept", pool, "aws:///us-east-1a/i-0eeeeeeeeeeeeeeee", true);
  auto node = kube::Typed<Node>(*client_).get("", "node-kept");
  ASSERT_TRUE(node) << node.error().describe();
  node->metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(kube::Typed<Node>(*client_).update(*node));
  addClaim("busy", pool, "aws:///us-east-1a/i-0ffffffffffffffff", true);
  // More than node-kept has room for: it needs a new node.
  bindPod("web", "2500m", "node-busy");

  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  EXPECT_EQ(out[0], std::string("nodeclaim busy  node node-busy  nodepool default  "
                                "reason Drifted  ") +
                        kWhy);
  EXPECT_EQ(out[1], "  disrupt  budget: " + budgetFor(pool, 2));
  EXPECT_TRUE(out[2].starts_with("  replace with: default for 1 pods (cheapest ")) << out[2];
  EXPECT_EQ(out[3], std::string("nodeclaim kept  node node-kept  nodepool default  "
                                "reason Drifted  ") +
                        kWhy);
  EXPECT_EQ(out[4], "  blocked  do-not-disrupt: node node-kept is annotated do-not-disrupt");
  EXPECT_EQ(out[5], "plan: 1 to disrupt, 1 blocked, 0 in flight");

  auto json = run({"disruption", "plan", "-o", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const api::Json doc = api::Json::parse(json.out);
  EXPECT_EQ(doc["summary"], api::Json::parse(R"({"disrupt": 1, "blocked": 1, "inFlight": 0})"));
  EXPECT_EQ(doc["candidates"][0]["nodeClaim"], "busy");
  EXPECT_EQ(doc["candidates"][0]["decision"], "disrupt");
  EXPECT_EQ(doc["candidates"][0]["replacement"]["pods"], 1);
  EXPECT_EQ(doc["candidates"][1]["decision"], "blocked");
}

// Consolidation's part of the plan: the decision a pass would take now, its savings and where
// each pod goes, and why a PodDisruptionBudget keeps a node.
class ConsolidationPlanTest : public DisruptionPlanTest {
 protected:
  NodePool consolidatingPool() {
    NodePool pool = addPool({"100%"});
    pool.spec.disruption.consolidationPolicy = "WhenEmptyOrUnderutilized";
    pool.spec.disruption.consolidateAfter = core::Duration(std::chrono::seconds(0));
    auto updated = kube::Typed<NodePool>(*client_).update(pool);
    EXPECT_TRUE(updated) << updated.error().describe();
    return updated.value_or(pool);
  }
  // A claim whose Node is labelled as the provisioner leaves it, so that it has a price.
  void addPricedClaim(const std::string& name, const NodePool& pool, const std::string& id) {
    addClaim(name, pool, "aws:///us-east-1a/" + id, false);
    auto node = kube::Typed<Node>(*client_).get("", "node-" + name);
    ASSERT_TRUE(node) << node.error().describe();
    node->metadata.labels["node.kubernetes.io/instance-type"] = "m5.large";
    node->metadata.labels["topology.kubernetes.io/zone"] = "us-east-1a";
    node->metadata.labels["karpenter.sh/capacity-type"] = "on-demand";
    ASSERT_TRUE(kube::Typed<Node>(*client_).update(*node));
  }
};

TEST_F(ConsolidationPlanTest, ListsTheDecisionWithItsSavingsAndWhereEachPodGoes) {
  const NodePool pool = consolidatingPool();
  addPricedClaim("a", pool, "i-0aaaaaaaaaaaaaaaa");
  addPricedClaim("b", pool, "i-0bbbbbbbbbbbbbbbb");
  bindPod("web-a", "500m", "node-a");
  bindPod("web-b", "500m", "node-b");
  const auto claimsBefore = versions<NodeClaim>();

  auto json = run({"disruption", "plan", "-o", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const api::Json doc = api::Json::parse(json.out);
  const api::Json& decision = doc["consolidation"]["decision"];
  ASSERT_TRUE(decision.is_object()) << json.out;
  EXPECT_GT(decision["savingsPerHour"].get<double>(), 0) << json.out;
  // Every pod of the decided nodes has somewhere to go, and nowhere on a decided node.
  std::set<std::string> decided;
  for (const auto& name : decision["nodeClaims"]) {
    decided.insert("node-" + name.get<std::string>());
  }
  ASSERT_FALSE(decided.empty());
  for (const auto& [claim, pod] : {std::pair{"a", "default/web-a"}, {"b", "default/web-b"}}) {
    if (!decided.contains(std::string("node-") + claim)) {
      continue;
    }
    ASSERT_TRUE(decision["moves"].contains(pod)) << json.out;
    EXPECT_FALSE(decided.contains(decision["moves"][pod].get<std::string>())) << json.out;
  }

  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_GE(out.size(), 4u) << r.out;
  EXPECT_EQ(out[0], "consolidation  " + decision["method"].get<std::string>() + "  " +
                        decision["description"].get<std::string>());
  EXPECT_EQ(out[1], fmt::format("  saves ${:.4f}/h", decision["savingsPerHour"].get<double>()));
  EXPECT_TRUE(out[2].starts_with("  move default/web-")) << out[2];
  EXPECT_EQ(out.back(),
            fmt::format("plan: 0 to disrupt, 0 blocked, 0 in flight, consolidation saves ${:.4f}/h",
                        decision["savingsPerHour"].get<double>()));
  EXPECT_EQ(versions<NodeClaim>(), claimsBefore);
}

TEST_F(ConsolidationPlanTest, SaysWhichPodDisruptionBudgetKeepsANode) {
  const NodePool pool = consolidatingPool();
  addPricedClaim("kept", pool, "i-0cccccccccccccccc");
  bindPod("web-0", "500m", "node-kept");
  auto pod = kube::Typed<Pod>(*client_).get("default", "web-0");
  ASSERT_TRUE(pod) << pod.error().describe();
  pod->metadata.labels["app"] = "web";
  ASSERT_TRUE(kube::Typed<Pod>(*client_).update(*pod));
  api::corev1::PodDisruptionBudget pdb;
  pdb.apiVersion = "policy/v1";
  pdb.kind = "PodDisruptionBudget";
  pdb.metadata.name = "web";
  pdb.metadata.namespace_ = "default";
  api::LabelSelector selector;
  selector.matchLabels = {{"app", "web"}};
  pdb.spec.selector = selector;
  pdb.spec.maxUnavailable = api::IntOrString::ofInt(0);
  auto made = kube::Typed<api::corev1::PodDisruptionBudget>(*client_).create(pdb);
  ASSERT_TRUE(made) << made.error().describe();

  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "consolidation keeps nodeclaim kept: pdb default/web prevents eviction of pod "
            "default/web-0\n"
            "plan: 0 to disrupt, 0 blocked, 0 in flight\n");
}

TEST_F(DisruptionPlanTest, WithNothingToDoItSaysSo) {
  const NodePool pool = addPool();
  addClaim("calm", pool, "aws:///us-east-1a/i-0123456789abcdef0", false);
  auto r = run({"disruption", "plan"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "plan: 0 to disrupt, 0 blocked, 0 in flight\n");
}

TEST(DisruptionPlanCommandTest, TheClusterNameIsRequired) {
  auto r = runCmd({"disruption", "plan", "--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--cluster-name: required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd::testing
