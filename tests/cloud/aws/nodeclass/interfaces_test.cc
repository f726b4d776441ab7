// Per-interface selectors: an interface with its own subnet or security-group terms gets their
// results, one without inherits the node class's; the structural checks name the interface.
#include "cloud/aws/nodeclass/resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws/nodeclass/emulated_peer.h"
#include "cloud/aws/nodeclass/expect.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;
using ::testing::ElementsAre;

class NodeClassInterfacesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = std::make_unique<EmulatedPeer>(clock_, emulators::testing::fastOptions());
    ASSERT_TRUE(peer_->ok());
    resolver_ =
        std::make_unique<NodeClassResolver>(clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{});
    nc_ = discoveryNodeClass();
    api::karpenter::NetworkInterface primary;
    primary.deviceIndex = 0;
    api::karpenter::NetworkInterface second;
    second.deviceIndex = 1;
    nc_.spec.networkInterfaces = {primary, second};
  }

  ResolvedNodeClass resolve() {
    auto r = resolver_->resolve(nc_);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : ResolvedNodeClass{};
  }

  core::FakeClock clock_;
  std::unique_ptr<EmulatedPeer> peer_;
  std::unique_ptr<NodeClassResolver> resolver_;
  api::karpenter::EC2NodeClass nc_;
};

TEST_F(NodeClassInterfacesTest, AnInterfaceWithoutSelectorsInheritsTheClasss) {
  nc_.spec.networkInterfaces[1].subnetSelectorTerms = {{{}, kSubnetB}};
  nc_.spec.networkInterfaces[1].securityGroupSelectorTerms = {{{}, "", "default"}};
  ResolvedNodeClass r = resolve();
  ASSERT_EQ(r.interfaces.size(), 2u);
  EXPECT_FALSE(r.interfaces[0].ownSubnets);
  EXPECT_FALSE(r.interfaces[0].ownSecurityGroups);
  EXPECT_THAT(subnetIds(r.interfaces[0].subnets), ElementsAre(kSubnetA, kSubnetB, kSubnetC));
  EXPECT_THAT(groupIds(r.interfaces[0].securityGroups), ElementsAre(kNodeGroup));
  EXPECT_TRUE(r.interfaces[1].ownSubnets);
  EXPECT_TRUE(r.interfaces[1].ownSecurityGroups);
  EXPECT_THAT(subnetIds(r.interfaces[1].subnets), ElementsAre(kSubnetB));
  EXPECT_THAT(groupIds(r.interfaces[1].securityGroups), ElementsAre(kDefaultGroup));
  // The status lists the class's selections only.
  EXPECT_EQ(r.status.subnets.size(), 3u);
  EXPECT_EQ(r.status.securityGroups.size(), 1u);
  EXPECT_TRUE(r.ready()) << condition(r, nodeclass::kReady).message;
}

TEST_F(NodeClassInterfacesTest, OwnSelectorsMatchingNothingAreFalseConditionsNamingThem) {
  nc_.spec.networkInterfaces[1].subnetSelectorTerms = {{{{"team", "nobody"}}, ""}};
  nc_.spec.networkInterfaces[1].securityGroupSelectorTerms = {{{}, "", "nobody"}};
  ResolvedNodeClass r = resolve();
  api::Condition subnets = condition(r, nodeclass::kSubnetsReady);
  EXPECT_EQ(subnets.status, "False");
  EXPECT_EQ(subnets.reason, "SubnetsNotFound");
  EXPECT_EQ(subnets.message, "no subnets match spec.networkInterfaces[1].subnetSelectorTerms");
  api::Condition groups = condition(r, nodeclass::kSecurityGroupsReady);
  EXPECT_EQ(groups.status, "False");
  EXPECT_EQ(groups.message,
            "no security groups match spec.networkInterfaces[1].securityGroupSelectorTerms");
  EXPECT_EQ(condition(r, nodeclass::kValidationSucceeded).status, "Unknown");
}

TEST_F(NodeClassInterfacesTest, AnInterfacesSubnetsMustBeInTheVpcOfItsGroups) {
  // Its own subnet is in the other VPC, its groups are the class's.
  nc_.spec.networkInterfaces[1].subnetSelectorTerms = {{{}, kOtherSubnet}};
  api::Condition v = condition(resolve(), nodeclass::kValidationSucceeded);
  EXPECT_EQ(v.status, "False");
  EXPECT_EQ(v.reason, "SecurityGroupVPCMismatch");
  EXPECT_EQ(v.message,
            "spec.networkInterfaces[1].subnetSelectorTerms: security group sg-0e2c4a6f8b1d30001 "
            "is in vpc-0e2c4a6f8b1d30001, but subnet subnet-0f0f0f0f0f0f0000a is in "
            "vpc-0f0f0f0f0f0f00002");

  // With groups of that VPC as well, it is valid: an instance may reach into another VPC.
  nc_.spec.networkInterfaces[1].securityGroupSelectorTerms = {{{}, kOtherGroup, ""}};
  ResolvedNodeClass r = resolve();
  EXPECT_EQ(condition(r, nodeclass::kValidationSucceeded).status, "True")
      << condition(r, nodeclass::kValidationSucceeded).message;
}

TEST_F(NodeClassInterfacesTest, AnInterfaceWithOwnSubnetsMustShareAZoneWithTheClass) {
  nc_.spec.subnetSelectorTerms = {{{}, kSubnetA}};
  nc_.spec.networkInterfaces[1].subnetSelectorTerms = {{{}, kSubnetB}, {{}, kSubnetC}};
  api::Condition v = condition(resolve(), nodeclass::kValidationSucceeded);
  EXPECT_EQ(v.status, "False");
  EXPECT_EQ(v.reason, "InterfaceZoneMismatch");
  EXPECT_EQ(v.message,
            "spec.networkInterfaces[1].subnetSelectorTerms: no selected subnet is in a zone of "
            "the subnets of spec.subnetSelectorTerms (us-east-1a)");

  nc_.spec.networkInterfaces[1].subnetSelectorTerms.push_back({{}, kSubnetA});
  EXPECT_EQ(condition(resolve(), nodeclass::kValidationSucceeded).status, "True");
}

}  // namespace
}  // namespace nodewright::cloud::aws
