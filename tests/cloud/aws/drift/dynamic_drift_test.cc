// The node class's selectors drift by resolution (seed 002): the instance's AMI, subnet and
// security groups against status, and each network interface's against its own (seed 001).
#include <gtest/gtest.h>

#include "aws/ec2_types.h"
#include "drift_fixture.h"

namespace nodewright::cloud::aws::testing {
namespace {

using api::Json;
using api::karpenter::EC2NodeClass;
using api::karpenter::NodeClaim;

const api::karpenter::HashPolicy& policy() {
  return api::karpenter::defaultHashPolicy();
}

class DynamicDriftTest : public ::testing::Test {
 protected:
  std::vector<DriftCheck> checks() const {
    return nodeClassDrift(claim_, nc_, instance_, policy());
  }
  DriftCheck check(const std::string& name) const { return find(checks(), name); }

  EC2NodeClass nc_ = resolvedNodeClass();
  NodeClaim claim_ = launchedClaim(nc_);
  InstanceFacts instance_ = runningInstance();
};

TEST_F(DynamicDriftTest, AMatchingNodeRunsEveryCheckAndPassesThem) {
  const auto all = checks();
  // The node class lists interfaces: their live layout is checked last.
  EXPECT_EQ(names(all), (std::vector<std::string>{"NodeClass", "AMI", "Subnet", "SecurityGroups",
                                                  "NetworkInterfaces"}));
  EXPECT_EQ(drifted(all), std::vector<std::string>{});
  EXPECT_EQ(all[1].detail, "ami-0amd64 is the AMI resolved for amd64 nodes");
  EXPECT_EQ(all[2].detail, "subnet-a is among the 2 resolved subnets");
  EXPECT_EQ(all[3].detail, "exactly the resolved sg-1, sg-2");
}

// AMI ---------------------------------------------------------------------------------------------

TEST_F(DynamicDriftTest, AnImageNoLongerResolvedDriftsNamingTheNewOne) {
  nc_.status.amis[1].id = "ami-0amd64new";
  const DriftCheck ami = check("AMI");
  EXPECT_TRUE(ami.drifted);
  EXPECT_EQ(ami.reason, "AMIDrifted");
  EXPECT_EQ(ami.detail,
            "ami-0amd64 is no longer the AMI resolved for amd64 nodes: ami-0amd64new "
            "(ami-0amd64-name) is");
  ASSERT_EQ(ami.changes.size(), 1u);
  EXPECT_EQ(ami.changes[0].path, "status.amis");
  EXPECT_EQ(ami.changes[0].from, Json("ami-0amd64"));
  EXPECT_EQ(ami.changes[0].to, Json("ami-0amd64new"));
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{"AMI"});
}

TEST_F(DynamicDriftTest, OnlyAnAmiOfAnotherArchitectureDrifts) {
  nc_.status.amis = {ami(kArm64, "arm64")};
  const DriftCheck check = this->check("AMI");
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(check.detail,
            "none of the resolved AMIs ami-0arm64 suits this amd64 node running ami-0amd64");
  ASSERT_EQ(check.changes.size(), 1u);
  EXPECT_TRUE(check.changes[0].to.is_null());
}

TEST_F(DynamicDriftTest, AnImageResolvedForOtherNodesOnlyDrifts) {
  // The NVIDIA image is newest and listed first; a node without GPUs must not take it.
  claim_.status.imageID = kNvidia;
  EXPECT_TRUE(check("AMI").drifted);
  claim_.metadata.labels[kGpuCount] = "1";
  EXPECT_FALSE(check("AMI").drifted) << check("AMI").detail;
  claim_.status.imageID = kAmd64;
  EXPECT_TRUE(check("AMI").drifted);
}

TEST_F(DynamicDriftTest, TheInstancesImageStandsInForAClaimThatRecordsNone) {
  claim_.status.imageID.clear();
  instance_.imageId = "ami-0old";
  EXPECT_TRUE(check("AMI").drifted);
  instance_.imageId.clear();
  EXPECT_EQ(check("AMI").detail, "the claim records no image: not compared");
}

TEST_F(DynamicDriftTest, MissingDataNeverDriftsTheAmi) {
  claim_.status.imageID = "ami-0old";
  claim_.metadata.labels.erase("kubernetes.io/arch");
  EXPECT_FALSE(check("AMI").drifted);
  EXPECT_EQ(check("AMI").detail,
            "the claim has no kubernetes.io/arch label to match AMIs by: not compared");
  claim_.metadata.labels["kubernetes.io/arch"] = "amd64";
  nc_.status.amis.clear();
  EXPECT_FALSE(check("AMI").drifted);
  EXPECT_EQ(check("AMI").detail, "status.amis is empty (not resolved yet): not compared");
}

// Subnets and security groups -------------------------------------------------------------------

TEST_F(DynamicDriftTest, ASubnetNoLongerResolvedDrifts) {
  nc_.status.subnets = {{"subnet-c", "us-east-1c", ""}, {"subnet-b", "us-east-1b", ""}};
  const DriftCheck subnet = check("Subnet");
  EXPECT_TRUE(subnet.drifted);
  EXPECT_EQ(subnet.reason, "SubnetDrifted");
  EXPECT_EQ(subnet.detail, "subnet-a is not among the resolved subnets subnet-b, subnet-c");
  EXPECT_EQ(describe(subnet), R"(status.subnets: "subnet-a" -> ["subnet-b","subnet-c"])");
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{"Subnet"});
}

TEST_F(DynamicDriftTest, AnySecondaryInterfaceOnTheClassSubnetsIsChecked) {
  instance_.networkInterfaces[1].subnetId = "subnet-z";
  EXPECT_EQ(check("Subnet").detail,
            "subnet-z (network card 0, device 1) is not among the resolved subnets subnet-a, "
            "subnet-b");
}

TEST_F(DynamicDriftTest, AnExtraSecurityGroupDrifts) {
  instance_.networkInterfaces[0].securityGroupIds.push_back("sg-3");
  const DriftCheck groups = check("SecurityGroups");
  EXPECT_TRUE(groups.drifted);
  EXPECT_EQ(groups.reason, "SecurityGroupDrifted");
  EXPECT_EQ(groups.detail,
            "security groups sg-1, sg-2, sg-3 are not the resolved sg-1, sg-2: "
            "sg-3 extra");
  EXPECT_EQ(describe(groups),
            R"(status.securityGroups: ["sg-1","sg-2","sg-3"] -> ["sg-1","sg-2"])");
}

TEST_F(DynamicDriftTest, AMissingSecurityGroupDrifts) {
  nc_.status.securityGroups.push_back({"sg-4", "new"});
  const DriftCheck groups = check("SecurityGroups");
  EXPECT_TRUE(groups.drifted);
  EXPECT_EQ(groups.detail,
            "security groups sg-1, sg-2 are not the resolved sg-1, sg-2, sg-4: sg-4 missing");
}

TEST_F(DynamicDriftTest, ASecurityGroupSetInAnyOrderWithRepeatsIsTheSame) {
  instance_.networkInterfaces[0].securityGroupIds = {"sg-1", "sg-2", "sg-1"};
  EXPECT_FALSE(check("SecurityGroups").drifted);
  instance_.networkInterfaces[0].securityGroupIds = {"sg-1", "sg-1"};
  EXPECT_TRUE(check("SecurityGroups").drifted);
}

TEST_F(DynamicDriftTest, WithoutReportedInterfacesThePrimaryIsTheInstances) {
  instance_.networkInterfaces.clear();
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{});
  instance_.subnetId = "subnet-z";
  instance_.securityGroupIds = {"sg-1"};
  EXPECT_EQ(drifted(checks()), (std::vector<std::string>{"Subnet", "SecurityGroups"}));
}

TEST_F(DynamicDriftTest, AnUnresolvedStatusNeverDrifts) {
  nc_.status.subnets.clear();
  nc_.status.securityGroups.clear();
  instance_.networkInterfaces[0].subnetId = "subnet-z";
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{});
  EXPECT_EQ(check("Subnet").detail, "status.subnets is empty (not resolved yet): not compared");
  EXPECT_EQ(check("SecurityGroups").detail,
            "status.securityGroups is empty (not resolved yet): not compared");
}

// Network interfaces with selectors of their own ------------------------------------------------

class InterfaceDriftTest : public DynamicDriftTest {
 protected:
  void SetUp() override {
    auto& ni = nc_.spec.networkInterfaces[1];
    api::karpenter::SubnetSelectorTerm subnets;
    subnets.tags = {{"role", "storage"}};
    ni.subnetSelectorTerms = {subnets};
    api::karpenter::SecurityGroupSelectorTerm groups;
    groups.tags = {{"role", "storage"}};
    ni.securityGroupSelectorTerms = {groups};
    api::karpenter::NetworkInterfaceStatus status;
    status.deviceIndex = 1;
    status.subnets = {{"subnet-s1", "us-east-1a", ""}, {"subnet-s2", "us-east-1b", ""}};
    status.securityGroups = {{"sg-s", "storage"}};
    nc_.status.networkInterfaces = {status};
    claim_ = launchedClaim(nc_);
    instance_.networkInterfaces[1].subnetId = "subnet-s1";
    instance_.networkInterfaces[1].securityGroupIds = {"sg-s"};
  }
};

TEST_F(InterfaceDriftTest, EachInterfaceIsCheckedAgainstItsOwnResolution) {
  const auto all = checks();
  EXPECT_EQ(names(all), (std::vector<std::string>{"NodeClass", "AMI", "Subnet", "SecurityGroups",
                                                  "NetworkInterfaces[1].Subnet",
                                                  "NetworkInterfaces[1].SecurityGroups",
                                                  "NetworkInterfaces"}));
  EXPECT_EQ(drifted(all), std::vector<std::string>{});
  EXPECT_EQ(all[4].detail, "subnet-s1 is among the 2 subnets resolved for it");
  EXPECT_EQ(all[5].detail, "exactly the sg-s resolved for it");
}

TEST_F(InterfaceDriftTest, AnInterfacesSubnetNoLongerResolvedDrifts) {
  nc_.status.networkInterfaces[0].subnets = {{"subnet-s2", "us-east-1b", ""}};
  const DriftCheck subnet = check("NetworkInterfaces[1].Subnet");
  EXPECT_TRUE(subnet.drifted);
  EXPECT_EQ(subnet.reason, "SubnetDrifted");
  EXPECT_EQ(
      describe(subnet),
      R"(status.networkInterfaces[networkCardIndex=0,deviceIndex=1].subnets: "subnet-s1" -> ["subnet-s2"])");
  EXPECT_EQ(subnet.detail,
            "subnet-s1 (network card 0, device 1) is not among the resolved subnets subnet-s2");
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{"NetworkInterfaces[1].Subnet"});
}

TEST_F(InterfaceDriftTest, AnInterfacesSecurityGroupsDifferingDrift) {
  nc_.status.networkInterfaces[0].securityGroups.push_back({"sg-t", "storage-2"});
  const DriftCheck groups = check("NetworkInterfaces[1].SecurityGroups");
  EXPECT_TRUE(groups.drifted);
  EXPECT_EQ(groups.reason, "SecurityGroupDrifted");
  EXPECT_EQ(groups.detail,
            "security groups sg-s (network card 0, device 1) are not the resolved "
            "sg-s, sg-t: sg-t missing");
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{"NetworkInterfaces[1].SecurityGroups"});
}

TEST_F(InterfaceDriftTest, TheClassChecksLeaveInterfacesWithTheirOwnSelectorsAlone) {
  // subnet-s1 and sg-s are not the node class's, and that is right for this interface.
  EXPECT_FALSE(check("Subnet").drifted);
  EXPECT_FALSE(check("SecurityGroups").drifted);
  instance_.networkInterfaces[0].subnetId = "subnet-s1";
  EXPECT_TRUE(check("Subnet").drifted);
}

TEST_F(InterfaceDriftTest, AnInterfaceMatchesByCardAndDeviceNotPosition) {
  std::swap(instance_.networkInterfaces[0], instance_.networkInterfaces[1]);
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{});
}

TEST_F(InterfaceDriftTest, AnUnresolvedInterfaceIsNotCompared) {
  nc_.status.networkInterfaces.clear();
  instance_.networkInterfaces[1].subnetId = "subnet-z";
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{});
  EXPECT_EQ(check("NetworkInterfaces[1].Subnet").detail,
            "status.networkInterfaces has no entry for network card 0, device 1 (not resolved "
            "yet): not compared");
}

// Its selectors cannot be compared, but the interface itself is missing: the live layout check
// drifts the node (an ENI removed out of band, interface_layout.h).
TEST_F(InterfaceDriftTest, AnInterfaceTheInstanceLacksDriftsTheLayoutNotItsSelectors) {
  instance_.networkInterfaces.pop_back();
  EXPECT_EQ(check("NetworkInterfaces[1].Subnet").detail,
            "the instance has no interface on network card 0, device 1: not compared");
  EXPECT_EQ(drifted(checks()), std::vector<std::string>{"NetworkInterfaces"});
}

// Instance facts ----------------------------------------------------------------------------------

TEST(InstanceFactsTest, ThePrimaryInterfaceIsTheSourceOfTheInstancesNetwork) {
  nodewright::aws::Instance instance;
  instance.instanceId = "i-1";
  instance.imageId = "ami-1";
  instance.subnetId = "subnet-top";
  instance.securityGroupIds = {"sg-top"};
  instance.networkInterfaces.push_back({"eni-2", "subnet-2", 1, 0, "interface", {"sg-2"}});
  instance.networkInterfaces.push_back({"eni-1", "subnet-1", 0, 0, "interface", {"sg-1"}});
  const InstanceFacts facts(instance);
  EXPECT_EQ(facts.instanceId, "i-1");
  EXPECT_EQ(facts.imageId, "ami-1");
  EXPECT_EQ(facts.subnetId, "subnet-1");
  EXPECT_EQ(facts.securityGroupIds, std::vector<std::string>{"sg-1"});
  ASSERT_EQ(facts.networkInterfaces.size(), 2u);
  EXPECT_EQ(facts.networkInterfaces[0].deviceIndex, 1);
  EXPECT_EQ(facts.networkInterfaces[0].subnetId, "subnet-2");
  EXPECT_EQ(facts.networkInterfaces[0].securityGroupIds, std::vector<std::string>{"sg-2"});
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
