// The node agent over the AWS provider against moto_server, the second real EC2 peer: a Node
// registered from an instance moto launched for a NodeClaim.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "emulators/kubelet/agent_fixture.h"
#include "support/aws/moto_server.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

class NodeAgentMotoTest : public AgentTest {
 protected:
  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_.error(), "");
    startStack(moto_.url(), "");
    wire_ = std::make_unique<emulators::testing::QueryClient>(moto_.url(), core::systemClock());
  }

  std::string create(std::string_view action, const nodewright::aws::ParamPairs& params,
                     const char* name) {
    auto r = wire_->call(action, params);
    EXPECT_TRUE(r && r->status == 200) << (r ? r->body : r.error().message());
    return r ? r->firstText(name) : "";
  }

  // A VPC with a subnet and a security group in moto, tagged for discovery; a node class
  // selecting them and an amazon-owned x86_64 image.
  api::karpenter::EC2NodeClass network(const std::string& cluster) {
    const std::string vpc = create("CreateVpc", {{"CidrBlock", "10.42.0.0/16"}}, "vpcId");
    std::vector<std::string> ids = {
        create("CreateSubnet",
               {{"VpcId", vpc}, {"AvailabilityZone", "us-east-1a"}, {"CidrBlock", "10.42.0.0/24"}},
               "subnetId"),
        create("CreateSecurityGroup",
               {{"GroupName", cluster + "-node"}, {"GroupDescription", "nodes"}, {"VpcId", vpc}},
               "groupId")};
    auto tagged = stack().ec2().createTags(ids, {{"karpenter.sh/discovery", cluster}});
    EXPECT_TRUE(tagged) << tagged.error().message;
    auto images = stack().ec2().describeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
    EXPECT_TRUE(images && !images->empty());
    auto nc = cloud::aws::testing::discoveryNodeClass(cluster);
    nc.spec.subnetSelectorTerms[0].tags = {{"karpenter.sh/discovery", cluster}};
    nc.spec.securityGroupSelectorTerms[0].tags = {{"karpenter.sh/discovery", cluster}};
    api::karpenter::AMISelectorTerm byId;
    byId.id = images && !images->empty() ? images->front().imageId : "";
    nc.spec.amiSelectorTerms = {byId};
    nc.spec.amiFamily = "AL2023";
    return nc;
  }

  nodewright::aws::testing::MotoServer moto_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

TEST_F(NodeAgentMotoTest, RegistersANodeForAnInstanceMotoLaunched) {
  auto nc = network("moto-agent");
  nodeClasses_[nc.metadata.name] = nc;
  startAgent();
  const cloud::Machine machine = launch("moto-claim", nc.metadata.name, {"m5.xlarge"});
  ASSERT_FALSE(machine.providerID.empty());

  auto node = awaitNode(machine);
  ASSERT_TRUE(node);
  EXPECT_EQ(node->spec.providerID, machine.providerID);
  EXPECT_EQ(node->metadata.labels.at("node.kubernetes.io/instance-type"), "m5.xlarge");
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(node->metadata.labels.at("topology.kubernetes.io/zone"), "us-east-1a");
  EXPECT_EQ(node->status.capacity, machine.capacity);
  EXPECT_EQ(node->status.capacity.at("cpu"), q("4"));
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].key, kUnregisteredTaintKey);

  // Terminated in moto: the Node goes.
  ASSERT_TRUE(provider().remove(machine.providerID));
  ASSERT_TRUE(cluster_.advanceUntil([&] { return !cluster_.node(node->metadata.name); }));
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
