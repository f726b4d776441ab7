// DescribeAvailabilityZones, DescribeSubnets, DescribeSecurityGroups and DescribeVpcs, in process.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/spot_prices.h"
#include "emulators/ec2/world.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::allPages;
using testing::DescribeActionsTest;
using testing::DescribeWorld;
using testing::expectError;
using testing::worldWithSubnets;
using testing::Xml;

// ---- Zones and networks

TEST_F(DescribeActionsTest, ZonesComeFromTheWorld) {
  auto body = w_.call("DescribeAvailabilityZones");
  ASSERT_TRUE(body);
  Xml xml(*body);
  EXPECT_EQ(xml.texts("availabilityZoneInfo", "zoneName"),
            (std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"}));
  EXPECT_EQ(xml.texts("availabilityZoneInfo", "zoneId"),
            (std::vector<std::string>{"use1-az1", "use1-az2", "use1-az4"}));
  auto first = xml.items("availabilityZoneInfo")[0];
  EXPECT_STREQ(first.child_value("zoneState"), "available");
  EXPECT_STREQ(first.child_value("regionName"), "us-east-1");
  EXPECT_STREQ(first.child_value("zoneType"), "availability-zone");
  EXPECT_STREQ(first.child_value("optInStatus"), "opt-in-not-required");

  auto some = w_.call("DescribeAvailabilityZones",
                      "ZoneId.1=use1-az4&Filter.1.Name=state&Filter.1.Value.1=available");
  ASSERT_TRUE(some);
  EXPECT_EQ(Xml(*some).texts("availabilityZoneInfo", "zoneName"),
            std::vector<std::string>{"us-east-1c"});
  auto wildcard = w_.call("DescribeAvailabilityZones",
                          "Filter.1.Name=zone-name&Filter.1.Value.1=us-east-1[ab]"
                          "&Filter.2.Name=zone-name&Filter.2.Value.1=*-1?");
  ASSERT_TRUE(wildcard);
  EXPECT_TRUE(Xml(*wildcard).items("availabilityZoneInfo").empty()) << "'[' is not a wildcard";
  expectError(w_.call("DescribeAvailabilityZones", "ZoneName.1=us-east-1z"),
              "InvalidParameterValue", "us-east-1z");
}

TEST_F(DescribeActionsTest, SubnetsAreFilteredByTagsAndZones) {
  auto all = w_.call("DescribeSubnets");
  ASSERT_TRUE(all);
  EXPECT_EQ(Xml(*all).items("subnetSet").size(), 4u);

  auto tagged = allPages(w_, "DescribeSubnets",
                         "Filter.1.Name=tag:karpenter.sh/discovery&Filter.1.Value.1=nodewright",
                         "subnetSet", "subnetId");
  EXPECT_EQ(tagged,
            (std::vector<std::string>{"subnet-0e2c4a6f8b1d3000a", "subnet-0e2c4a6f8b1d3000b",
                                      "subnet-0e2c4a6f8b1d3000c"}));
  auto keyed = allPages(w_, "DescribeSubnets",
                        "Filter.1.Name=tag-key&Filter.1.Value.1=kubernetes.io/role/*"
                        "&Filter.2.Name=availability-zone&Filter.2.Value.1=*-1b",
                        "subnetSet", "subnetId");
  EXPECT_EQ(keyed, std::vector<std::string>{"subnet-0e2c4a6f8b1d3000b"});
  auto other =
      allPages(w_, "DescribeSubnets", "Filter.1.Name=vpc-id&Filter.1.Value.1=vpc-0f0f0f0f0f0f00002",
               "subnetSet", "subnetId");
  EXPECT_EQ(other, std::vector<std::string>{"subnet-0f0f0f0f0f0f0000a"});

  auto one = w_.call("DescribeSubnets", "SubnetId.1=subnet-0e2c4a6f8b1d3000a");
  ASSERT_TRUE(one);
  Xml xml(*one);
  ASSERT_EQ(xml.items("subnetSet").size(), 1u);
  auto s = xml.items("subnetSet")[0];
  EXPECT_STREQ(s.child_value("vpcId"), "vpc-0e2c4a6f8b1d30001");
  EXPECT_STREQ(s.child_value("availabilityZone"), "us-east-1a");
  EXPECT_STREQ(s.child_value("availabilityZoneId"), "use1-az1");
  EXPECT_STREQ(s.child_value("cidrBlock"), "10.0.0.0/19");
  EXPECT_STREQ(s.child_value("availableIpAddressCount"), "8187");
  EXPECT_STREQ(s.child_value("state"), "available");
  EXPECT_STREQ(s.child_value("mapPublicIpOnLaunch"), "false");
  EXPECT_STREQ(s.child("ipv6CidrBlockAssociationSet").child("item").child_value("ipv6CidrBlock"),
               "2600:1f18:4e2c:4a00::/64");
  auto dns = s.child("privateDnsNameOptionsOnLaunch");
  EXPECT_STREQ(dns.child_value("hostnameType"), "ip-name");
  EXPECT_STREQ(dns.child_value("enableResourceNameDnsARecord"), "false");
  EXPECT_STREQ(dns.child_value("enableResourceNameDnsAAAARecord"), "false");
  std::map<std::string, std::string> tags;
  for (auto tag : s.child("tagSet").children("item")) {
    tags[tag.child_value("key")] = tag.child_value("value");
  }
  EXPECT_EQ(tags["karpenter.sh/discovery"], "nodewright");
}

TEST_F(DescribeActionsTest, UnknownSubnetsAreNotFound) {
  expectError(w_.call("DescribeSubnets",
                      "SubnetId.1=subnet-0e2c4a6f8b1d3000a&SubnetId.2=subnet-0123456789abcdef0"),
              "InvalidSubnetID.NotFound", "'subnet-0123456789abcdef0'");
  expectError(w_.call("DescribeSubnets", "Filter.1.Name=colour&Filter.1.Value.1=red"),
              "InvalidParameterValue", "'colour'");
  expectError(w_.call("DescribeSubnets", "Filter.1.Name=vpc-id"), "InvalidParameterValue");
}

TEST(DescribeStoredPagesTest, SubnetPagesReturnEverySubnetOnce) {
  DescribeWorld w(worldWithSubnets(23));
  int pages = 0;
  auto ids = allPages(w, "DescribeSubnets", "MaxResults=5", "subnetSet", "subnetId", &pages);
  EXPECT_EQ(ids.size(), 27u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 27u);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(pages, 6);
  // Filters apply before paging: no page is short because of them, but the last.
  auto tagged =
      allPages(w, "DescribeSubnets", "MaxResults=5&Filter.1.Name=tag:page&Filter.1.Value.1=yes",
               "subnetSet", "subnetId", &pages);
  EXPECT_EQ(tagged.size(), 23u);
  EXPECT_EQ(pages, 5);
  expectError(w.call("DescribeSubnets", "MaxResults=4"), "InvalidParameterValue");
}

TEST_F(DescribeActionsTest, SecurityGroupsAreFilteredByTagsAndIds) {
  auto tagged = allPages(w_, "DescribeSecurityGroups",
                         "Filter.1.Name=tag:karpenter.sh/discovery&Filter.1.Value.1=nodewright",
                         "securityGroupInfo", "groupId");
  EXPECT_EQ(tagged, std::vector<std::string>{"sg-0e2c4a6f8b1d30001"});
  auto byName = allPages(w_, "DescribeSecurityGroups",
                         "Filter.1.Name=group-name&Filter.1.Value.1=default"
                         "&Filter.2.Name=vpc-id&Filter.2.Value.1=vpc-0e2c4a6f8b1d30001",
                         "securityGroupInfo", "groupId");
  EXPECT_EQ(byName, std::vector<std::string>{"sg-0e2c4a6f8b1d30000"});

  auto body = w_.call("DescribeSecurityGroups", "GroupId.1=sg-0e2c4a6f8b1d30001");
  ASSERT_TRUE(body);
  const Xml doc(*body);
  auto group = doc.items("securityGroupInfo").at(0);
  EXPECT_STREQ(group.child_value("groupName"), "nodewright-node");
  EXPECT_STREQ(group.child_value("groupDescription"), "Nodes of the nodewright cluster");
  EXPECT_STREQ(group.child_value("vpcId"), "vpc-0e2c4a6f8b1d30001");
  EXPECT_STREQ(group.child_value("ownerId"), "123456789012");
  EXPECT_TRUE(group.child("ipPermissions"));
  EXPECT_FALSE(group.child("ipPermissions").first_child());
  // EC2's default egress rules: all IPv4 and, as the VPC has an IPv6 block, all IPv6 traffic.
  auto egress = group.child("ipPermissionsEgress").child("item");
  EXPECT_STREQ(egress.child_value("ipProtocol"), "-1");
  EXPECT_STREQ(egress.child("ipRanges").child("item").child_value("cidrIp"), "0.0.0.0/0");
  EXPECT_STREQ(egress.child("ipv6Ranges").child("item").child_value("cidrIpv6"), "::/0");
  auto other = w_.call("DescribeSecurityGroups", "GroupId.1=sg-0f0f0f0f0f0f00002");
  ASSERT_TRUE(other);
  EXPECT_FALSE(Xml(*other)
                   .items("securityGroupInfo")
                   .at(0)
                   .child("ipPermissionsEgress")
                   .child("item")
                   .child("ipv6Ranges")
                   .first_child())
      << "an IPv4-only VPC's group has no IPv6 rule";

  expectError(w_.call("DescribeSecurityGroups", "GroupId.1=sg-0123456789abcdef0"),
              "InvalidGroup.NotFound", "'sg-0123456789abcdef0'");
  // The default world has no default VPC, so a group cannot be named.
  expectError(w_.call("DescribeSecurityGroups", "GroupName.1=default"), "VPCIdNotSpecified");
}

TEST(DescribeSecurityGroupNamesTest, NamesGroupsOfTheDefaultVpc) {
  DescribeWorld w(worldWithSubnets(0));
  auto ids = allPages(w, "DescribeSecurityGroups", "GroupName.1=nodewright-node",
                      "securityGroupInfo", "groupId");
  EXPECT_EQ(ids, std::vector<std::string>{"sg-0e2c4a6f8b1d30001"});
  // "other" exists, but in another VPC.
  expectError(w.call("DescribeSecurityGroups", "GroupName.1=other"), "InvalidGroup.NotFound",
              "'other'");
}

TEST_F(DescribeActionsTest, VpcsAreFilteredAndFound) {
  auto all = allPages(w_, "DescribeVpcs", "", "vpcSet", "vpcId");
  EXPECT_EQ(all, (std::vector<std::string>{"vpc-0e2c4a6f8b1d30001", "vpc-0f0f0f0f0f0f00002"}));
  auto tagged = allPages(w_, "DescribeVpcs", "Filter.1.Name=tag:Name&Filter.1.Value.1=oth*",
                         "vpcSet", "vpcId");
  EXPECT_EQ(tagged, std::vector<std::string>{"vpc-0f0f0f0f0f0f00002"});
  auto body = w_.call("DescribeVpcs", "VpcId.1=vpc-0e2c4a6f8b1d30001");
  ASSERT_TRUE(body);
  const Xml doc(*body);
  auto vpc = doc.items("vpcSet").at(0);
  EXPECT_STREQ(vpc.child_value("cidrBlock"), "10.0.0.0/16");
  EXPECT_STREQ(vpc.child_value("isDefault"), "false");
  EXPECT_STREQ(vpc.child_value("state"), "available");
  // The /56 around the subnets' /64s.
  auto ipv6 = vpc.child("ipv6CidrBlockAssociationSet").child("item");
  EXPECT_STREQ(ipv6.child_value("ipv6CidrBlock"), "2600:1f18:4e2c:4a00::/56");
  EXPECT_STREQ(ipv6.child("ipv6CidrBlockState").child_value("state"), "associated");
  EXPECT_STREQ(ipv6.child_value("ipv6Pool"), "Amazon");
  auto byIpv6 = allPages(w_, "DescribeVpcs",
                         "Filter.1.Name=ipv6-cidr-block-association.ipv6-cidr-block"
                         "&Filter.1.Value.1=2600:1f18:4e2c:4a00::/56",
                         "vpcSet", "vpcId");
  EXPECT_EQ(byIpv6, std::vector<std::string>{"vpc-0e2c4a6f8b1d30001"});
  auto other = w_.call("DescribeVpcs", "VpcId.1=vpc-0f0f0f0f0f0f00002");
  ASSERT_TRUE(other);
  EXPECT_FALSE(
      Xml(*other).items("vpcSet").at(0).child("ipv6CidrBlockAssociationSet").first_child());
  expectError(w_.call("DescribeVpcs", "VpcId.1=vpc-0123456789abcdef0"), "InvalidVpcID.NotFound");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
