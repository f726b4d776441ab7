// `nodewright drift explain` as the built binary against the embedded API server and the EC2
// emulator: every check of a claim in the drift controller's order, each PASS or FAIL with the
// fields that changed, and the verdict on the last line.
#include <gtest/gtest.h>

#include "api/karpenter/hashing.h"
#include "cmd/cmd_test_util.h"
#include "cmd/inspect_env.h"

namespace nodewright::cmd::testing {
namespace {

class DriftExplainTest : public InspectEnv {};

// The check lines ("PASS NodePool", "FAIL NodeClass", ...) without their details.
std::vector<std::string> checkHeads(const std::string& out) {
  std::vector<std::string> heads;
  for (const std::string& line : lines(out)) {
    if (line.starts_with("PASS ") || line.starts_with("FAIL ")) {
      heads.push_back(line.substr(0, line.find("  ")));
    }
  }
  return heads;
}

TEST_F(DriftExplainTest, AClaimThatMatchesPassesEveryCheck) {
  const NodePool pool = addPool();
  launch("fresh", pool);
  auto r = run({"drift", "explain", "fresh"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_GE(out.size(), 2u) << r.out;
  EXPECT_EQ(out.front(), "nodeclaim fresh  node node-fresh  nodepool default");
  EXPECT_TRUE(out[1].starts_with("PASS NodePool  ")) << out[1];
  EXPECT_NE(out[1].find("unchanged"), std::string::npos) << out[1];
  EXPECT_EQ(checkHeads(r.out),
            (std::vector<std::string>{"PASS NodePool", "PASS Requirements", "PASS NodeClass",
                                      "PASS AMI", "PASS Subnet", "PASS SecurityGroups"}))
      << r.out;
  EXPECT_EQ(r.out.find("ERROR"), std::string::npos) << r.out;
  EXPECT_EQ(out.back(), "not drifted");
}

TEST_F(DriftExplainTest, ANodePoolLabelChangedSinceLaunchFailsTheNodePoolCheckWithTheField) {
  const NodePool launchedFrom = addPool();
  launch("labelled", launchedFrom);
  NodePool changed = launchedFrom;
  changed.spec.template_.metadata.labels["team"] = "b";
  auto updated = kube::Typed<NodePool>(*client_).update(changed);
  ASSERT_TRUE(updated) << updated.error().describe();

  auto r = run({"drift", "explain", "labelled"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto policy = api::karpenter::defaultHashPolicy();
  const auto out = lines(r.out);
  ASSERT_GE(out.size(), 4u) << r.out;
  EXPECT_EQ(out[1], "FAIL NodePool  hash " + api::karpenter::nodePoolHash(launchedFrom, policy) +
                        " -> " + api::karpenter::nodePoolHash(*updated, policy));
  EXPECT_EQ(out[2], R"(    spec.template.metadata.labels[team]: "a" -> "b")");
  EXPECT_EQ(out[3], "PASS Requirements  satisfied");
  // Only the NodePool moved: the node class checks still pass.
  EXPECT_EQ(checkHeads(r.out),
            (std::vector<std::string>{"FAIL NodePool", "PASS Requirements", "PASS NodeClass",
                                      "PASS AMI", "PASS Subnet", "PASS SecurityGroups"}))
      << r.out;
  EXPECT_EQ(out.back(), "drifted: NodePoolDrifted");

  auto json = run({"drift", "explain", "labelled", "-o", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const api::Json doc = api::Json::parse(json.out);
  EXPECT_EQ(doc["drifted"], true);
  EXPECT_EQ(doc["reason"], "NodePoolDrifted");
  EXPECT_EQ(doc["checks"][0]["name"], "NodePool");
  EXPECT_EQ(doc["checks"][0]["changes"],
            api::Json::parse(
                R"([{"path": "spec.template.metadata.labels[team]", "from": "a", "to": "b"}])"));
}

TEST_F(DriftExplainTest, WithoutAnInstanceTheNodePoolChecksShowAndTheCloudErrorIsNamed) {
  const NodePool pool = addPool();
  addClaim("ghost", pool, "aws:///us-east-1a/i-0000000000000dead", false);
  auto r = run({"drift", "explain", "ghost"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 5u) << r.out;
  EXPECT_EQ(out[0], "nodeclaim ghost  node node-ghost  nodepool default");
  EXPECT_EQ(checkHeads(r.out), (std::vector<std::string>{"PASS NodePool", "PASS Requirements"}));
  EXPECT_TRUE(out[3].starts_with("ERROR cloud  checking drift of ghost: ")) << out[3];
  EXPECT_NE(out[3].find("i-0000000000000dead"), std::string::npos) << out[3];
  EXPECT_EQ(out[4], "undetermined: the cloud's checks did not run");
}

TEST_F(DriftExplainTest, TheRecordedConditionIsShownBesideTheChecksOfNow) {
  const NodePool pool = addPool();
  addClaim("recorded", pool, "aws:///us-east-1a/i-0000000000000dead", true);
  auto r = run({"drift", "explain", "recorded"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_GE(out.size(), 2u) << r.out;
  EXPECT_EQ(out[1], "condition Drifted=True NodeClassDrifted");
}

TEST_F(DriftExplainTest, AMissingClaimExitsOneNamingIt) {
  addPool();
  auto r = run({"drift", "explain", "nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: nodeclaim nope not found\n");
}

TEST_F(DriftExplainTest, WithoutAClaimNameItIsAUsageError) {
  auto r = run({"drift", "explain"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("NODECLAIM"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd::testing
