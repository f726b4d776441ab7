// NodeClassResolver against the EC2 emulator: Karpenter's selector semantics for subnets,
// security groups and AMIs, and "nothing matched" as a False condition rather than an error.
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
using ::testing::UnorderedElementsAre;

constexpr const char* kTinySubnet = "subnet-0e2c4a6f8b1d3000d";  // tagged Name only
constexpr const char* kCustomAmd64 = "nodewright-custom-al2023-x86_64";
constexpr const char* kCustomArm64 = "nodewright-custom-al2023-arm64";

class NodeClassResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = std::make_unique<EmulatedPeer>(clock_, options());
    ASSERT_TRUE(peer_->ok());
    resolver_ = std::make_unique<NodeClassResolver>(
        clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{"1.32", std::chrono::minutes(1)});
  }

  virtual emulators::ec2::Ec2EmulatorOptions options() {
    auto o = emulators::testing::fastOptions();
    emulators::testing::addTinySubnet(o.world, kTinySubnet, 11);
    return o;
  }

  ResolvedNodeClass resolve(const api::karpenter::EC2NodeClass& nc) {
    auto r = resolver_->resolve(nc);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : ResolvedNodeClass{};
  }

  // The id of the image named `name` among the resolved ones ("" when absent).
  static std::string imageNamed(const ResolvedNodeClass& r, const std::string& name) {
    for (const ResolvedImage& i : r.images) {
      if (i.name == name) {
        return i.id;
      }
    }
    return "";
  }

  core::FakeClock clock_;
  std::unique_ptr<EmulatedPeer> peer_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

TEST_F(NodeClassResolverTest, ResolvesTheDiscoveryTagsAndReportsEachSubnetWithItsZone) {
  ResolvedNodeClass r = resolve(discoveryNodeClass());
  EXPECT_THAT(subnetIds(r.subnets), ElementsAre(kSubnetA, kSubnetB, kSubnetC));
  EXPECT_THAT(groupIds(r.securityGroups), ElementsAre(kNodeGroup));
  ASSERT_EQ(r.status.subnets.size(), 3u);
  EXPECT_EQ(r.status.subnets[0].id, kSubnetA);
  EXPECT_EQ(r.status.subnets[0].zone, "us-east-1a");
  EXPECT_EQ(r.status.subnets[0].zoneID, "use1-az1");
  EXPECT_EQ(r.status.subnets[2].zoneID, "use1-az4");
  ASSERT_EQ(r.status.securityGroups.size(), 1u);
  EXPECT_EQ(r.status.securityGroups[0].name, "nodewright-node");
  EXPECT_EQ(r.family, kFamilyAL2023);
  for (const char* type :
       {nodeclass::kSubnetsReady, nodeclass::kSecurityGroupsReady, nodeclass::kAMIsReady,
        nodeclass::kValidationSucceeded, nodeclass::kReady}) {
    api::Condition c = condition(r, type);
    EXPECT_EQ(c.status, "True") << type << ": " << c.message;
    EXPECT_EQ(c.reason, type);
    EXPECT_EQ(c.observedGeneration, 1);
    EXPECT_EQ(c.lastTransitionTime.point(), clock_.now());
  }
  EXPECT_TRUE(r.ready());
}

TEST_F(NodeClassResolverTest, SortsSubnetsByAvailableAddressesMostFirst) {
  auto nc = discoveryNodeClass();
  nc.spec.subnetSelectorTerms = {{{}, kTinySubnet}, {{}, kSubnetB}};
  ResolvedNodeClass r = resolve(nc);
  EXPECT_THAT(subnetIds(r.subnets), ElementsAre(kSubnetB, kTinySubnet));
  EXPECT_EQ(r.subnets[1].availableIpAddressCount, 11);
}

TEST_F(NodeClassResolverTest, OrsTermsAndAndsTheFieldsOfATerm) {
  auto nc = discoveryNodeClass();
  nc.spec.subnetSelectorTerms = {
      {{{"karpenter.sh/discovery", "nodewright"}, {"Name", "nodewright-private-us-east-1b"}}, ""},
      {{}, kOtherSubnet}};
  EXPECT_THAT(subnetIds(resolve(nc).subnets), UnorderedElementsAre(kSubnetB, kOtherSubnet));
}

TEST_F(NodeClassResolverTest, ATagValueOfStarSelectsByKeyAlone) {
  auto nc = discoveryNodeClass();
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "*"}}, ""}};
  EXPECT_THAT(subnetIds(resolve(nc).subnets), ElementsAre(kSubnetA, kSubnetB, kSubnetC));
  nc.spec.subnetSelectorTerms = {{{{"Name", "*"}}, ""}};
  EXPECT_THAT(subnetIds(resolve(nc).subnets),
              UnorderedElementsAre(kSubnetA, kSubnetB, kSubnetC, kOtherSubnet, kTinySubnet));
}

TEST_F(NodeClassResolverTest, SelectsSecurityGroupsByNameAndById) {
  auto nc = discoveryNodeClass();
  nc.spec.securityGroupSelectorTerms = {{{}, "", "default"}, {{}, kNodeGroup, ""}};
  ResolvedNodeClass r = resolve(nc);
  EXPECT_THAT(groupIds(r.securityGroups), ElementsAre(kDefaultGroup, kNodeGroup));
  EXPECT_EQ(r.status.securityGroups[0].name, "default");
}

TEST_F(NodeClassResolverTest, ANameAloneFindsTheAccountsAndAmazonsImages) {
  auto nc = discoveryNodeClass();
  nc.spec.amiFamily = "AL2023";
  api::karpenter::AMISelectorTerm custom;
  custom.name = "nodewright-custom-al2023-*";
  api::karpenter::AMISelectorTerm eks;
  eks.name = "amazon-eks-node-al2023-x86_64-standard-1.32-*";
  nc.spec.amiSelectorTerms = {custom, eks};
  ResolvedNodeClass r = resolve(nc);
  // Three images, but the EKS one and the custom amd64 share a requirement set (arch only):
  // the newer wins, and both have the same date, so the smaller id does.
  ASSERT_EQ(r.images.size(), 2u);
  EXPECT_NE(imageNamed(r, kCustomArm64), "");
  EXPECT_NE(imageNamed(r, kCustomAmd64) +
                imageNamed(r, "amazon-eks-node-al2023-x86_64-standard-1.32-v20241115"),
            "");
  EXPECT_EQ(r.images[0].requirements.size(), 1u);
  EXPECT_EQ(r.images[0].requirements[0].key, "kubernetes.io/arch");
  EXPECT_EQ(condition(r, nodeclass::kAMIsReady).status, "True");
}

TEST_F(NodeClassResolverTest, AnOwnerNarrowsANameToThatAccount) {
  auto nc = discoveryNodeClass();
  nc.spec.amiFamily = "AL2023";
  api::karpenter::AMISelectorTerm term;
  term.name = "amazon-eks-node-al2023-*";
  term.owner = "123456789012";  // the world's account owns only the custom images
  nc.spec.amiSelectorTerms = {term};
  ResolvedNodeClass r = resolve(nc);
  EXPECT_TRUE(r.images.empty());
  api::Condition amis = condition(r, nodeclass::kAMIsReady);
  EXPECT_EQ(amis.status, "False");
  EXPECT_EQ(amis.reason, "AMINotFound");
  EXPECT_EQ(amis.message, "no AMIs match spec.amiSelectorTerms");
}

TEST_F(NodeClassResolverTest, SelectsImagesByTagsIdAndSsmParameter) {
  auto nc = discoveryNodeClass();
  nc.spec.amiFamily = "AL2023";
  api::karpenter::AMISelectorTerm tags;
  tags.tags = {{"Name", kCustomArm64}};
  api::karpenter::AMISelectorTerm id;
  const std::string bottlerocket =
      peer_->parameter("/aws/service/bottlerocket/aws-k8s-1.32/x86_64/latest/image_id");
  id.id = bottlerocket;
  nc.spec.amiSelectorTerms = {tags, id};
  ResolvedNodeClass r = resolve(nc);
  EXPECT_THAT(imageIds(r.images), UnorderedElementsAre(imageNamed(r, kCustomArm64), bottlerocket));
  EXPECT_EQ(r.images.size(), 2u);

  api::karpenter::AMISelectorTerm ssm;
  ssm.ssmParameter = "/aws/service/bottlerocket/aws-k8s-1.32/arm64/latest/image_id";
  nc.spec.amiSelectorTerms = {ssm};
  r = resolve(nc);
  ASSERT_EQ(r.images.size(), 1u);
  EXPECT_EQ(r.images[0].id, peer_->parameter(ssm.ssmParameter));
  EXPECT_EQ(r.images[0].architecture, "arm64");
  EXPECT_EQ(r.status.amis[0].requirements[0].values, std::vector<std::string>{"arm64"});

  ssm.ssmParameter = "/nodewright/missing";
  nc.spec.amiSelectorTerms = {ssm};
  api::Condition amis = condition(resolve(nc), nodeclass::kAMIsReady);
  EXPECT_EQ(amis.status, "False");
  EXPECT_EQ(
      amis.message,
      "no AMIs match spec.amiSelectorTerms: SSM parameter /nodewright/missing does not exist");
}

TEST_F(NodeClassResolverTest, NoMatchingSubnetIsAFalseConditionNotAnError) {
  auto nc = discoveryNodeClass();
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "nobody"}}, ""}};
  ResolvedNodeClass r = resolve(nc);
  api::Condition subnets = condition(r, nodeclass::kSubnetsReady);
  EXPECT_EQ(subnets.status, "False");
  EXPECT_EQ(subnets.reason, "SubnetsNotFound");
  EXPECT_EQ(subnets.message, "no subnets match spec.subnetSelectorTerms");
  EXPECT_EQ(condition(r, nodeclass::kSecurityGroupsReady).status, "True");
  api::Condition validation = condition(r, nodeclass::kValidationSucceeded);
  EXPECT_EQ(validation.status, "Unknown");
  EXPECT_EQ(validation.reason, "DependenciesNotReady");
  api::Condition ready = condition(r, nodeclass::kReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_EQ(ready.reason, "UnhealthyDependents");
  EXPECT_EQ(ready.message, "SubnetsReady=False, ValidationSucceeded=Unknown");
  EXPECT_FALSE(r.ready());
  EXPECT_TRUE(r.status.subnets.empty());
}

TEST_F(NodeClassResolverTest, NoMatchingSecurityGroupIsAFalseCondition) {
  auto nc = discoveryNodeClass();
  nc.spec.securityGroupSelectorTerms = {{{}, "", "no-such-group"}};
  api::Condition groups = condition(resolve(nc), nodeclass::kSecurityGroupsReady);
  EXPECT_EQ(groups.status, "False");
  EXPECT_EQ(groups.reason, "SecurityGroupsNotFound");
  EXPECT_EQ(groups.message, "no security groups match spec.securityGroupSelectorTerms");
}

TEST_F(NodeClassResolverTest, GroupsOfAnotherVpcThanTheSubnetsFailValidation) {
  auto nc = discoveryNodeClass();
  nc.spec.securityGroupSelectorTerms = {{{}, kOtherGroup, ""}};
  ResolvedNodeClass r = resolve(nc);
  api::Condition validation = condition(r, nodeclass::kValidationSucceeded);
  EXPECT_EQ(validation.status, "False");
  EXPECT_EQ(validation.reason, "SecurityGroupVPCMismatch");
  EXPECT_EQ(validation.message,
            "spec.securityGroupSelectorTerms: security group sg-0f0f0f0f0f0f00002 is in "
            "vpc-0f0f0f0f0f0f00002, but subnet subnet-0e2c4a6f8b1d3000a is in "
            "vpc-0e2c4a6f8b1d30001");
  EXPECT_EQ(condition(r, nodeclass::kReady).message, "ValidationSucceeded=False");
}

TEST_F(NodeClassResolverTest, AThrottledCallIsAnErrorNotACondition) {
  peer_->putFaults(R"({"throttling": false, "errors": {"DescribeSecurityGroups":
                       [{"code": "RequestLimitExceeded", "probability": 1}]}})");
  auto r = resolver_->resolve(discoveryNodeClass());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), core::Code::Throttled);
  EXPECT_NE(r.error().message().find("resolving spec.securityGroupSelectorTerms"),
            std::string::npos)
      << r.error().message();
}

TEST_F(NodeClassResolverTest, AnUnreachableEndpointIsAnError) {
  peer_->connect("http://127.0.0.1:1");
  NodeClassResolver resolver(clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{});
  auto r = resolver.resolve(discoveryNodeClass());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("describing subnets"), std::string::npos)
      << r.error().message();
}

}  // namespace
}  // namespace nodewright::cloud::aws
