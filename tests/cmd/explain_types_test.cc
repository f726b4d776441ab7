// `nodewright explain-types NODEPOOL` as the built binary against the embedded API server and
// the EC2 emulator: every instance type, fits or excluded with the reason the node class or the
// NodePool gives (seed 001: 4 interfaces fit m5.xlarge, not m5.large).
#include <gtest/gtest.h>

#include "cmd/cmd_test_util.h"
#include "cmd/inspect_env.h"

namespace nodewright::cmd::testing {
namespace {

class ExplainTypesTest : public InspectEnv {
 protected:
  // The node class asks for 4 interfaces (devices 0-3 on card 0); the pool allows m5.large and
  // m5.xlarge.
  NodePool seedScenario() {
    auto stored = kube::Typed<EC2NodeClass>(*client_).get("", "default");
    EXPECT_TRUE(stored) << stored.error().describe();
    EC2NodeClass nc = stored.value_or(nodeClass_);
    for (int device = 0; device < 4; ++device) {
      api::karpenter::NetworkInterface ni;
      ni.deviceIndex = device;
      ni.networkCardIndex = 0;
      ni.interfaceType = "interface";
      nc.spec.networkInterfaces.push_back(ni);
    }
    auto updated = kube::Typed<EC2NodeClass>(*client_).update(nc);
    EXPECT_TRUE(updated) << updated.error().describe();
    NodePool pool;
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = "default";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.template_.spec.requirements.push_back(
        {"node.kubernetes.io/instance-type", "In", {"m5.large", "m5.xlarge"}, std::nullopt});
    auto created = kube::Typed<NodePool>(*client_).create(pool);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(pool);
  }
};

std::string lineOf(const std::string& out, const std::string& prefix) {
  for (const std::string& line : lines(out)) {
    if (line.starts_with(prefix)) {
      return line;
    }
  }
  return "";
}

TEST_F(ExplainTypesTest, ListsEveryTypeAsFitsOrExcludedWithTheReason) {
  seedScenario();
  auto r = run({"explain-types", "default"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_GT(out.size(), 100u) << r.out;
  EXPECT_TRUE(out.front().starts_with("nodepool default  nodeclass default  1 of ")) << out.front();
  const std::string large = lineOf(r.out, "excluded  m5.large ");
  EXPECT_TRUE(large.ends_with("4 network interfaces on network card 0, m5.large allows 3"))
      << large;
  EXPECT_TRUE(lineOf(r.out, "fits      m5.xlarge ").find("from $") != std::string::npos)
      << r.out.substr(0, 2000);
  // Types the node class could carry but the pool does not allow say so.
  EXPECT_NE(lineOf(r.out, "excluded  m5.2xlarge ").find("outside NodePool default's requirements"),
            std::string::npos);
  EXPECT_TRUE(out.back().starts_with("node class: ")) << out.back();
  EXPECT_NE(out.back().find("cannot carry the network interfaces asked for"), std::string::npos)
      << out.back();
}

TEST_F(ExplainTypesTest, JsonGivesEachTypeItsReasons) {
  seedScenario();
  auto r = run({"explain-types", "default", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const api::Json doc = api::Json::parse(r.out);
  EXPECT_EQ(doc["nodePool"], "default");
  int fitting = 0;
  for (const api::Json& type : doc["instanceTypes"]) {
    if (type["name"] == "m5.large") {
      EXPECT_EQ(type["fits"], false);
      EXPECT_EQ(type["reasons"],
                api::Json::array({"4 network interfaces on network card 0, m5.large allows 3"}));
    }
    fitting += type["fits"].get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(fitting, 1);
}

TEST_F(ExplainTypesTest, AnUnknownNodePoolIsAnError) {
  auto r = run({"explain-types", "nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("nodepool nope not found"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd::testing
