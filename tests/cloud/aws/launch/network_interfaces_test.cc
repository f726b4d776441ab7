// Seed 001's networkInterfaces as launch-template interfaces: every field, whose security
// groups and subnet each interface gets, Karpenter's EFA interfaces, and the lists EC2 would
// reject, each named by its field path.
#include "cloud/aws/launch/network_interfaces.h"

#include <gtest/gtest.h>

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::EC2NodeClassSpec;
using api::karpenter::NetworkInterface;

sdk::Subnet subnet(const std::string& id, const std::string& zone, int64_t free) {
  sdk::Subnet s;
  s.subnetId = id;
  s.availabilityZone = zone;
  s.availableIpAddressCount = free;
  return s;
}

sdk::SecurityGroup group(const std::string& id) {
  sdk::SecurityGroup g;
  g.groupId = id;
  return g;
}

class NetworkInterfacesTest : public ::testing::Test {
 protected:
  NetworkInterfacesTest() {
    resolved_.family = kFamilyAL2023;
    resolved_.subnets = {subnet("subnet-a", "us-east-1a", 100),
                         subnet("subnet-b", "us-east-1b", 100)};
    resolved_.securityGroups = {group("sg-2"), group("sg-1")};
  }

  // Interface i resolves to the node class's subnets and groups.
  void inherit(size_t count) {
    resolved_.interfaces.assign(
        count, ResolvedInterface{resolved_.subnets, resolved_.securityGroups, false, false});
  }

  std::vector<sdk::LaunchTemplateNetworkInterface> build(const InterfaceOptions& options = {}) {
    auto out = buildNetworkInterfaces(spec_, resolved_, options);
    EXPECT_TRUE(out) << out.error().message();
    return out ? *out : std::vector<sdk::LaunchTemplateNetworkInterface>{};
  }
  std::string error(const InterfaceOptions& options = {}) {
    auto out = buildNetworkInterfaces(spec_, resolved_, options);
    EXPECT_FALSE(out);
    return out ? "" : out.error().message();
  }

  EC2NodeClassSpec spec_;
  ResolvedNodeClass resolved_;
};

TEST_F(NetworkInterfacesTest, NoInterfacesNoEfaNoPublicIpLeavesGroupsToTheTemplate) {
  EXPECT_TRUE(build().empty());
}

TEST_F(NetworkInterfacesTest, MapsAllNineSeedFields) {
  NetworkInterface ni;
  ni.associateCarrierIPAddress = false;
  ni.associatePublicIPAddress = true;
  ni.deleteOnTermination = false;
  ni.description = "primary";
  ni.deviceIndex = 0;
  ni.interfaceType = "efa";
  ni.networkCardIndex = 0;
  ni.ipv4PrefixCount = 2;
  ni.ipv6PrefixCount = 1;
  spec_.networkInterfaces = {ni};
  inherit(1);
  auto out = build();
  ASSERT_EQ(out.size(), 1u);
  const auto& got = out[0];
  EXPECT_EQ(got.associateCarrierIpAddress, false);
  EXPECT_EQ(got.associatePublicIpAddress, true);
  EXPECT_EQ(got.deleteOnTermination, false);
  EXPECT_EQ(got.description, "primary");
  EXPECT_EQ(got.deviceIndex, 0);
  EXPECT_EQ(got.interfaceType, "efa");
  EXPECT_EQ(got.networkCardIndex, 0);
  EXPECT_EQ(got.ipv4PrefixCount, 2);
  EXPECT_EQ(got.ipv6PrefixCount, 1);
  EXPECT_EQ(got.groups, (std::vector<std::string>{"sg-1", "sg-2"}));
  EXPECT_EQ(got.subnetId, "");
}

TEST_F(NetworkInterfacesTest, UnsetFieldsStayUnsetAndPlainTypeIsEc2Default) {
  NetworkInterface ni;
  ni.interfaceType = "interface";
  spec_.networkInterfaces = {ni};
  auto out = build();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].associateCarrierIpAddress);
  EXPECT_FALSE(out[0].associatePublicIpAddress);
  EXPECT_FALSE(out[0].deleteOnTermination);
  EXPECT_FALSE(out[0].networkCardIndex);
  EXPECT_FALSE(out[0].ipv4PrefixCount);
  EXPECT_FALSE(out[0].ipv6PrefixCount);
  EXPECT_EQ(out[0].interfaceType, "");
  EXPECT_EQ(out[0].deviceIndex, 0);
}

TEST_F(NetworkInterfacesTest, InterfaceWithSelectorsGetsItsOwnGroupsAndZonalSubnet) {
  NetworkInterface primary;
  primary.deviceIndex = 0;
  NetworkInterface secondary;
  secondary.deviceIndex = 1;
  secondary.securityGroupSelectorTerms = {{{}, "sg-9", ""}};
  secondary.subnetSelectorTerms = {{{{"role", "storage"}}, ""}};
  spec_.networkInterfaces = {primary, secondary};
  inherit(2);
  resolved_.interfaces[1] = {
      {subnet("subnet-s1", "us-east-1a", 10), subnet("subnet-s2", "us-east-1a", 50),
       subnet("subnet-s3", "us-east-1b", 80)},
      {group("sg-9")},
      true,
      true};
  EXPECT_TRUE(interfacesPinSubnets(spec_, resolved_));

  auto unzoned = build();
  ASSERT_EQ(unzoned.size(), 2u);
  EXPECT_EQ(unzoned[0].groups, (std::vector<std::string>{"sg-1", "sg-2"}));
  EXPECT_EQ(unzoned[1].groups, (std::vector<std::string>{"sg-9"}));
  EXPECT_EQ(unzoned[1].subnetId, "");  // no zone chosen yet

  auto zoned = build({0, "us-east-1a"});
  ASSERT_EQ(zoned.size(), 2u);
  EXPECT_EQ(zoned[0].subnetId, "");           // the primary follows the fleet override's subnet
  EXPECT_EQ(zoned[1].subnetId, "subnet-s2");  // the roomiest of its own in the zone
}

TEST_F(NetworkInterfacesTest, OwnSubnetsWithoutOneInTheZoneIsInvalid) {
  NetworkInterface ni;
  ni.subnetSelectorTerms = {{{}, "subnet-s3"}};
  spec_.networkInterfaces = {ni};
  inherit(1);
  resolved_.interfaces[0].subnets = {subnet("subnet-s3", "us-east-1b", 80)};
  resolved_.interfaces[0].ownSubnets = true;
  EXPECT_EQ(error({0, "us-east-1a"}),
            "spec.networkInterfaces[0].subnetSelectorTerms: no subnet of the interface in zone "
            "us-east-1a");
}

TEST_F(NetworkInterfacesTest, EfaFromPodsFollowsKarpenter) {
  auto out = build({3, ""});
  ASSERT_EQ(out.size(), 3u);
  // Sorted by (deviceIndex, networkCardIndex): the primary, then cards 1 and 2 at device 1.
  EXPECT_EQ(out[0].deviceIndex, 0);
  EXPECT_EQ(out[0].networkCardIndex, 0);
  EXPECT_EQ(out[1].deviceIndex, 1);
  EXPECT_EQ(out[1].networkCardIndex, 1);
  EXPECT_EQ(out[2].deviceIndex, 1);
  EXPECT_EQ(out[2].networkCardIndex, 2);
  for (const auto& ni : out) {
    EXPECT_EQ(ni.interfaceType, "efa");
    EXPECT_EQ(ni.groups, (std::vector<std::string>{"sg-1", "sg-2"}));
  }
}

TEST_F(NetworkInterfacesTest, ListedInterfacesWinOverEfaFromPods) {
  NetworkInterface ni;
  ni.interfaceType = "efa";
  spec_.networkInterfaces = {ni};
  EXPECT_EQ(build({4, ""}).size(), 1u);
}

TEST_F(NetworkInterfacesTest, SortsByDeviceThenCard) {
  NetworkInterface a, b, c;
  a.deviceIndex = 1;
  a.networkCardIndex = 1;
  b.deviceIndex = 0;
  c.deviceIndex = 1;
  c.networkCardIndex = 0;
  spec_.networkInterfaces = {a, b, c};
  auto out = build();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(std::pair(out[0].deviceIndex, out[0].networkCardIndex.value_or(0)), std::pair(0, 0));
  EXPECT_EQ(std::pair(out[1].deviceIndex, out[1].networkCardIndex.value_or(0)), std::pair(1, 0));
  EXPECT_EQ(std::pair(out[2].deviceIndex, out[2].networkCardIndex.value_or(0)), std::pair(1, 1));
}

TEST_F(NetworkInterfacesTest, NodeClassPublicIpGoesOnTheOnlyInterface) {
  spec_.associatePublicIPAddress = true;
  auto out = build();
  ASSERT_EQ(out.size(), 1u);  // Karpenter's single primary interface
  EXPECT_EQ(out[0].associatePublicIpAddress, true);
  EXPECT_EQ(out[0].deviceIndex, 0);
  EXPECT_EQ(out[0].groups, (std::vector<std::string>{"sg-1", "sg-2"}));
}

struct InvalidCase {
  std::string name;
  std::function<void(EC2NodeClassSpec&)> edit;
  std::string message;
};

class NetworkInterfacesInvalidTest : public NetworkInterfacesTest,
                                     public ::testing::WithParamInterface<InvalidCase> {};

TEST_P(NetworkInterfacesInvalidTest, NamesTheFieldPath) {
  spec_.networkInterfaces = {NetworkInterface{}, NetworkInterface{}};
  spec_.networkInterfaces[1].deviceIndex = 1;
  GetParam().edit(spec_);
  EXPECT_EQ(error(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, NetworkInterfacesInvalidTest,
    ::testing::Values(
        InvalidCase{"UnknownType", [](auto& s) { s.networkInterfaces[1].interfaceType = "trunk"; },
                    "spec.networkInterfaces[1].interfaceType: \"trunk\" is not one of "
                    "interface, efa, efa-only"},
        InvalidCase{"NegativeCard", [](auto& s) { s.networkInterfaces[1].networkCardIndex = -1; },
                    "spec.networkInterfaces[1].networkCardIndex: -1 is negative"},
        InvalidCase{"NegativePrefixes",
                    [](auto& s) { s.networkInterfaces[0].ipv4PrefixCount = -2; },
                    "spec.networkInterfaces[0].ipv4PrefixCount: -2 is negative"},
        InvalidCase{"SameSlotTwice", [](auto& s) { s.networkInterfaces[1].deviceIndex = 0; },
                    "spec.networkInterfaces[1].deviceIndex: device 0 on network card 0 is "
                    "taken by spec.networkInterfaces[0]"},
        InvalidCase{"PublicIpWithTwoInterfaces",
                    [](auto& s) { s.networkInterfaces[1].associatePublicIPAddress = true; },
                    "spec.networkInterfaces[1].associatePublicIPAddress: a public IP needs a "
                    "launch with one network interface; this one has 2"},
        InvalidCase{"NodeClassPublicIpWithTwoInterfaces",
                    [](auto& s) { s.associatePublicIPAddress = true; },
                    "spec.associatePublicIPAddress: a public IP needs a launch with one network "
                    "interface; this one has 2"},
        InvalidCase{"OwnGroupsResolveToNone",
                    [](auto& s) {
                      s.networkInterfaces[0].securityGroupSelectorTerms = {{{}, "sg-gone", ""}};
                    },
                    "spec.networkInterfaces[0].securityGroupSelectorTerms: no security group "
                    "matches the interface's selectors"}),
    [](const auto& info) { return info.param.name; });

TEST_F(NetworkInterfacesTest, NoGroupAtAllIsInvalid) {
  resolved_.securityGroups.clear();
  spec_.networkInterfaces = {NetworkInterface{}};
  EXPECT_EQ(error(), "spec.securityGroupSelectorTerms: no security group matches the selectors");
}

}  // namespace
}  // namespace nodewright::cloud::aws
