// The pure half of a launch: capacity type, pools and client token, without a peer.
#include "cloud/aws/launch/fleet.h"

#include <gtest/gtest.h>

#include "cloud/aws/instance/ec2_peer.h"

namespace nodewright::cloud::aws {
namespace {

using testing::instanceType;

api::karpenter::NodeClaim claimWith(std::vector<std::string> capacityTypes,
                                    std::vector<std::string> zones = {}) {
  api::karpenter::NodeClaim c;
  c.metadata.name = "general-abcde";
  c.metadata.uid = "0f0e0d0c-0b0a-0908-0706-050403020100";
  c.spec.requirements.push_back({kLabelCapacityType, "In", std::move(capacityTypes), {}});
  if (!zones.empty()) {
    c.spec.requirements.push_back({kLabelZone, "In", std::move(zones), {}});
  }
  return c;
}

class FleetRequestTest : public ::testing::Test {
 protected:
  std::vector<const InstanceType*> all() { return {&large_, &xlarge_}; }

  core::FakeClock clock_;
  UnavailableOfferings unavailable_{clock_};
  InstanceType large_ = instanceType("m5.large", 0.096, 29);
  InstanceType xlarge_ = instanceType("m5.xlarge", 0.192, 58);
  std::map<std::string, std::string> subnets_ = {{"us-east-1a", "subnet-a"},
                                                 {"us-east-1b", "subnet-b"}};
};

TEST_F(FleetRequestTest, CapacityTypeDefaultsToOnDemandWithoutARequirement) {
  api::karpenter::NodeClaim claim;
  EXPECT_TRUE(claimAllows(claim, kLabelCapacityType, kCapacityTypeOnDemand));
  EXPECT_FALSE(claimAllows(claim, kLabelCapacityType, kCapacityTypeSpot));
  EXPECT_TRUE(claimAllows(claim, kLabelZone, "us-east-1c"));
  EXPECT_EQ(chooseCapacityType(all(), claim, subnets_, unavailable_), kCapacityTypeOnDemand);
}

TEST_F(FleetRequestTest, SpotWhenAllowedAndOfferedElseOnDemand) {
  auto claim = claimWith({"spot", "on-demand"});
  EXPECT_EQ(chooseCapacityType(all(), claim, subnets_, unavailable_), kCapacityTypeSpot);
  for (const auto& [zone, subnet] : subnets_) {
    unavailable_.markUnavailable("m5.large", zone, "spot", "InsufficientInstanceCapacity");
    unavailable_.markUnavailable("m5.xlarge", zone, "spot", "InsufficientInstanceCapacity");
  }
  EXPECT_EQ(chooseCapacityType(all(), claim, subnets_, unavailable_), kCapacityTypeOnDemand);
  clock_.advance(std::chrono::minutes(3));  // the marks expire
  EXPECT_EQ(chooseCapacityType(all(), claim, subnets_, unavailable_), kCapacityTypeSpot);
}

TEST_F(FleetRequestTest, DropsSpotDearerThanTheCheapestOnDemand) {
  auto claim = claimWith({"spot", "on-demand"});
  InstanceType dear = instanceType("m5.2xlarge", 0.384, 58, /*spotShare=*/0.3);  // 0.115 spot
  std::vector<const InstanceType*> types = {&large_, &dear};
  EXPECT_EQ(withoutDearSpot(types, claim, unavailable_), std::vector<const InstanceType*>{&large_});
  // Spot only: nothing to compare with, nothing dropped.
  EXPECT_EQ(withoutDearSpot(types, claimWith({"spot"}), unavailable_), types);
}

TEST_F(FleetRequestTest, OverridesAreTypesTimesAllowedZonesCheapestFirstSkippingUnavailable) {
  auto claim = claimWith({"on-demand"}, {"us-east-1a", "us-east-1b"});
  unavailable_.markUnavailable("m5.large", "us-east-1a", "on-demand",
                               "InsufficientInstanceCapacity");
  std::vector<TemplateGroup> groups = {{"lt-1", "ami-1", "", "", {&large_, &xlarge_}}};
  auto configs = fleetConfigs(groups, kCapacityTypeOnDemand, claim, subnets_, unavailable_);
  ASSERT_EQ(configs.size(), 1u);
  std::vector<std::string> pools;
  for (const auto& o : configs[0].overrides) {
    pools.push_back(o.instanceType + "/" + o.subnetId + "/" + o.availabilityZone);
  }
  EXPECT_EQ(pools, (std::vector<std::string>{"m5.large/subnet-b/us-east-1b",
                                             "m5.xlarge/subnet-a/us-east-1a",
                                             "m5.xlarge/subnet-b/us-east-1b"}));
}

TEST_F(FleetRequestTest, ZonalTemplatesOfferOnlyTheirZoneAndPinnedSubnet) {
  auto claim = claimWith({"on-demand"});
  std::vector<TemplateGroup> groups = {{"lt-a", "ami-1", "us-east-1a", "subnet-own-a", {&large_}},
                                       {"lt-b", "ami-1", "us-east-1b", "", {&large_}}};
  auto configs = fleetConfigs(groups, kCapacityTypeOnDemand, claim, subnets_, unavailable_);
  ASSERT_EQ(configs.size(), 2u);
  ASSERT_EQ(configs[0].overrides.size(), 1u);
  EXPECT_EQ(configs[0].overrides[0].subnetId, "subnet-own-a");
  ASSERT_EQ(configs[1].overrides.size(), 1u);
  EXPECT_EQ(configs[1].overrides[0].subnetId, "subnet-b");
}

TEST_F(FleetRequestTest, GroupsWithNoUsablePoolAreLeftOut) {
  auto claim = claimWith({"on-demand"}, {"us-east-1c"});  // no subnet there
  std::vector<TemplateGroup> groups = {{"lt-1", "ami-1", "", "", {&large_}}};
  EXPECT_TRUE(fleetConfigs(groups, kCapacityTypeOnDemand, claim, subnets_, unavailable_).empty());
}

TEST_F(FleetRequestTest, ClientTokenIsStablePerClaimAndAttemptAndFitsEc2) {
  auto claim = claimWith({"on-demand"});
  EXPECT_EQ(fleetClientToken(claim, 0), claim.metadata.uid);
  EXPECT_EQ(fleetClientToken(claim, 0), fleetClientToken(claim, 0));
  EXPECT_EQ(fleetClientToken(claim, 2), claim.metadata.uid + "-2");
  claim.metadata.uid.clear();
  EXPECT_EQ(fleetClientToken(claim, 0), "general-abcde");
  claim.metadata.name = std::string(200, 'n');
  const std::string longToken = fleetClientToken(claim, 12);
  EXPECT_LE(longToken.size(), 64u);
  EXPECT_EQ(longToken, fleetClientToken(claim, 12));
  claim.metadata.name = std::string(200, 'm');
  EXPECT_NE(fleetClientToken(claim, 12), longToken);
}

TEST(CapacityErrorTest, KarpentersUnfulfillableCodes) {
  for (const char* code : {"InsufficientInstanceCapacity", "MaxSpotInstanceCountExceeded",
                           "VcpuLimitExceeded", "UnfulfillableCapacity", "Unsupported",
                           "InsufficientFreeAddressesInSubnet", "ReservationCapacityExceeded"}) {
    EXPECT_TRUE(isCapacityError(code)) << code;
  }
  EXPECT_FALSE(isCapacityError("InvalidParameterValue"));
  EXPECT_FALSE(isCapacityError("InvalidLaunchTemplateName.NotFoundException"));
}

}  // namespace
}  // namespace nodewright::cloud::aws
