// The read-only EC2 actions in process: what they return for the default world and the
// built-in catalog, their filters (wildcards, tags), pagination and errors.
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

using testing::DescribeWorld;
using testing::Xml;

// Every page of `action` with `query`, following NextToken; fails the test on an error or a
// token seen twice.
std::vector<std::string> allPages(DescribeWorld& w, std::string_view action,
                                  const std::string& query, const char* list, const char* field,
                                  int* pages = nullptr) {
  std::vector<std::string> out;
  std::set<std::string> tokens;
  std::string token;
  for (int page = 0; page < 10000; ++page) {
    std::string q = query;
    if (!token.empty()) {
      q += "&NextToken=" + token;
    }
    auto body = w.call(action, q);
    EXPECT_TRUE(body) << body.error().code << ": " << body.error().message;
    if (!body) {
      return out;
    }
    Xml xml(*body);
    auto texts = xml.texts(list, field);
    out.insert(out.end(), texts.begin(), texts.end());
    token = xml.nextToken();
    if (pages) {
      *pages = page + 1;
    }
    if (token.empty()) {
      return out;
    }
    EXPECT_TRUE(tokens.insert(token).second) << "token repeated: " << token;
    EXPECT_FALSE(texts.empty()) << "an empty page with a NextToken";
  }
  ADD_FAILURE() << "pagination does not end";
  return out;
}

void expectError(const aws::ApiResult<std::string>& result, const std::string& code,
                 const std::string& messagePart = "") {
  ASSERT_FALSE(result) << "expected " << code << ", got a response";
  EXPECT_EQ(result.error().code, code) << result.error().message;
  EXPECT_NE(result.error().message.find(messagePart), std::string::npos) << result.error().message;
}

// A world whose main VPC has `extra` more subnets (for paging) and is the default VPC.
WorldConfig worldWithSubnets(int extra) {
  WorldConfig config = defaultWorld();
  config.vpcs[0].isDefault = true;
  for (int i = 0; i < extra; ++i) {
    SubnetConfig s;
    s.id = fmt::format("subnet-0aaaaaaaaaaaa{:04d}", i);
    s.zone = "us-east-1b";
    s.cidrBlock = fmt::format("10.0.{}.0/24", 200 + i);
    s.tags = {{"page", "yes"}};
    config.vpcs[0].subnets.push_back(s);
  }
  return config;
}

class DescribeActionsTest : public ::testing::Test {
 protected:
  DescribeWorld w_;
};

TEST_F(DescribeActionsTest, RegistersEveryActionInTheDescribeBucket) {
  for (const char* action :
       {"DescribeInstanceTypes", "DescribeInstanceTypeOfferings", "DescribeAvailabilityZones",
        "DescribeVpcs", "DescribeSubnets", "DescribeSecurityGroups", "DescribeImages",
        "DescribeSpotPriceHistory"}) {
    auto it = w_.table().find(action);
    ASSERT_NE(it, w_.table().end()) << action;
    EXPECT_EQ(it->second.bucketClass, bucket::kDescribe) << action;
  }
}

// ---- DescribeInstanceTypes

TEST_F(DescribeActionsTest, InstanceTypesReportTheCatalogFacts) {
  auto body =
      w_.call("DescribeInstanceTypes",
              "InstanceType.1=p5.48xlarge&InstanceType.2=m5.large&InstanceType.3=trn1.2xlarge");
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  auto items = xml.items("instanceTypeSet");
  ASSERT_EQ(items.size(), 3u);
  std::map<std::string, pugi::xml_node> byName;
  for (auto item : items) {
    byName[item.child_value("instanceType")] = item;
  }
  pugi::xml_node m5 = byName.at("m5.large");
  EXPECT_STREQ(m5.child("vCpuInfo").child_value("defaultVCpus"), "2");
  EXPECT_STREQ(m5.child("memoryInfo").child_value("sizeInMiB"), "8192");
  EXPECT_STREQ(m5.child_value("currentGeneration"), "true");
  EXPECT_STREQ(m5.child_value("hypervisor"), "nitro");
  EXPECT_STREQ(m5.child("processorInfo").child("supportedArchitectures").child_value("item"),
               "x86_64");
  pugi::xml_node net = m5.child("networkInfo");
  EXPECT_STREQ(net.child_value("maximumNetworkInterfaces"), "3");
  EXPECT_STREQ(net.child_value("maximumNetworkCards"), "1");
  EXPECT_STREQ(net.child_value("ipv4AddressesPerInterface"), "10");
  EXPECT_STREQ(net.child_value("efaSupported"), "false");
  EXPECT_FALSE(net.child("efaInfo"));
  EXPECT_FALSE(m5.child("gpuInfo"));

  pugi::xml_node p5 = byName.at("p5.48xlarge");
  const InstanceTypeInfo* p5Info = w_.catalog().find("p5.48xlarge");
  ASSERT_NE(p5Info, nullptr);
  pugi::xml_node p5net = p5.child("networkInfo");
  EXPECT_EQ(p5net.child("maximumNetworkCards").text().as_int(),
            static_cast<int>(p5Info->networkCards.size()));
  EXPECT_EQ(std::distance(p5net.child("networkCards").children("item").begin(),
                          p5net.child("networkCards").children("item").end()),
            static_cast<long>(p5Info->networkCards.size()));
  EXPECT_STREQ(p5net.child_value("efaSupported"), "true");
  EXPECT_EQ(p5net.child("efaInfo").child("maximumEfaInterfaces").text().as_int(),
            p5Info->maximumEfaInterfaces);
  pugi::xml_node gpu = p5.child("gpuInfo").child("gpus").child("item");
  EXPECT_STREQ(gpu.child_value("manufacturer"), "NVIDIA");
  EXPECT_STREQ(gpu.child_value("name"), "H100");
  EXPECT_EQ(gpu.child("count").text().as_int(), 8);
  EXPECT_EQ(p5.child("gpuInfo").child("totalGpuMemoryInMiB").text().as_llong(),
            *p5Info->gpus.memoryMiB * 8);

  pugi::xml_node neuron =
      byName.at("trn1.2xlarge").child("neuronInfo").child("neuronDevices").child("item");
  EXPECT_STREQ(neuron.child_value("name"), "Trainium");
  EXPECT_EQ(neuron.child("count").text().as_int(),
            w_.catalog().find("trn1.2xlarge")->accelerators.count);
}

// The values are EC2's (as in moto's copy of DescribeInstanceTypes), which the data file agrees
// with: the catalog tests check the built-in table against the file.
TEST_F(DescribeActionsTest, InstanceTypesReportProcessorStorageAndBandwidth) {
  auto body =
      w_.call("DescribeInstanceTypes",
              "InstanceType.1=m5.large&InstanceType.2=g5.xlarge&InstanceType.3=p4d.24xlarge");
  ASSERT_TRUE(body) << body.error().message;
  std::map<std::string, pugi::xml_node> byName;
  Xml xml(*body);
  for (auto item : xml.items("instanceTypeSet")) {
    byName[item.child_value("instanceType")] = item;
  }
  ASSERT_EQ(byName.size(), 3u);
  pugi::xml_node m5 = byName.at("m5.large");
  EXPECT_STREQ(m5.child("processorInfo").child_value("manufacturer"), "Intel");
  EXPECT_EQ(m5.child("processorInfo").child("sustainedClockSpeedInGhz").text().as_double(), 3.1);
  EXPECT_STREQ(m5.child_value("instanceStorageSupported"), "false");
  EXPECT_FALSE(m5.child("instanceStorageInfo"));
  EXPECT_STREQ(m5.child("ebsInfo").child("ebsOptimizedInfo").child_value("maximumBandwidthInMbps"),
               "4750");
  EXPECT_STREQ(m5.child("ebsInfo").child_value("ebsOptimizedSupport"), "default");
  pugi::xml_node m5net = m5.child("networkInfo");
  EXPECT_STREQ(m5net.child_value("encryptionInTransitSupported"), "false");
  EXPECT_EQ(
      m5net.child("networkCards").child("item").child("baselineBandwidthInGbps").text().as_double(),
      0.75);

  pugi::xml_node g5 = byName.at("g5.xlarge");
  EXPECT_STREQ(g5.child("processorInfo").child_value("manufacturer"), "AMD");
  EXPECT_STREQ(g5.child_value("instanceStorageSupported"), "true");
  pugi::xml_node storage = g5.child("instanceStorageInfo");
  EXPECT_STREQ(storage.child_value("totalSizeInGB"), "250");
  EXPECT_STREQ(storage.child_value("nvmeSupport"), "required");
  pugi::xml_node disk = storage.child("disks").child("item");
  EXPECT_STREQ(disk.child_value("sizeInGB"), "250");
  EXPECT_STREQ(disk.child_value("count"), "1");
  EXPECT_STREQ(disk.child_value("type"), "ssd");
  EXPECT_STREQ(g5.child("networkInfo").child_value("encryptionInTransitSupported"), "true");

  pugi::xml_node p4d = byName.at("p4d.24xlarge");
  pugi::xml_node p4dDisk = p4d.child("instanceStorageInfo").child("disks").child("item");
  EXPECT_STREQ(p4dDisk.child_value("sizeInGB"), "1000");
  EXPECT_STREQ(p4dDisk.child_value("count"), "8");
  EXPECT_STREQ(p4d.child("networkInfo").child_value("encryptionInTransitSupported"), "true");
  // The data has the bandwidth of the four cards together, not each card's.
  EXPECT_FALSE(p4d.child("networkInfo")
                   .child("networkCards")
                   .child("item")
                   .child("baselineBandwidthInGbps"));

  auto storageTypes = allPages(
      w_, "DescribeInstanceTypes",
      "Filter.1.Name=instance-storage-supported&Filter.1.Value.1=true&Filter.2.Name=instance-type"
      "&Filter.2.Value.1=g5.*&Filter.2.Value.2=m5.*",
      "instanceTypeSet", "instanceType");
  EXPECT_EQ(storageTypes.size(), 8u) << "the eight g5 sizes, no m5";
}

// A type whose storage and encryption no source knew shows neither, rather than "false".
TEST(DescribeInstanceTypeUnknownsTest, UnknownFactsAreLeftOut) {
  auto catalog = parseCatalog(R"([{"name":"x9.big","architecture":"amd64","vcpu":2}])", "t");
  ASSERT_TRUE(catalog) << catalog.error().message();
  DescribeWorld w(defaultWorld(), std::move(*catalog));
  auto body = w.call("DescribeInstanceTypes", "InstanceType.1=x9.big");
  ASSERT_TRUE(body) << body.error().message;
  const Xml doc(*body);
  auto item = doc.items("instanceTypeSet").at(0);
  EXPECT_FALSE(item.child("instanceStorageSupported"));
  EXPECT_FALSE(item.child("networkInfo").child("encryptionInTransitSupported"));
  EXPECT_FALSE(item.child("processorInfo").child("manufacturer"));
  EXPECT_FALSE(item.child("ebsInfo").child("ebsOptimizedInfo"));
  auto matched = w.call("DescribeInstanceTypes",
                        "Filter.1.Name=instance-storage-supported&Filter.1.Value.1=false");
  ASSERT_TRUE(matched);
  EXPECT_TRUE(Xml(*matched).items("instanceTypeSet").empty());
}

TEST_F(DescribeActionsTest, UnknownInstanceTypesAreListedInTheError) {
  expectError(w_.call("DescribeInstanceTypes",
                      "InstanceType.1=m5.large&InstanceType.2=m5.huge&InstanceType.3=x9.tiny"),
              "InvalidInstanceType",
              "The following supplied instance types do not exist: [m5.huge, x9.tiny]");
}

TEST_F(DescribeActionsTest, InstanceTypeFiltersTakeWildcards) {
  auto names =
      allPages(w_, "DescribeInstanceTypes",
               "Filter.1.Name=instance-type&Filter.1.Value.1=m5.*&Filter.1.Value.2=c7?.large",
               "instanceTypeSet", "instanceType");
  std::set<std::string> expected;
  for (const InstanceTypeInfo& t : w_.catalog().all()) {
    if (t.name.starts_with("m5.") || t.name == "c7g.large" || t.name == "c7i.large") {
      expected.insert(t.name);
    }
  }
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
  EXPECT_EQ(names.size(), expected.size());
  EXPECT_TRUE(expected.count("c7g.large"));
}

TEST_F(DescribeActionsTest, InstanceTypeFiltersCombineFacts) {
  auto names = allPages(w_, "DescribeInstanceTypes",
                        "Filter.1.Name=processor-info.supported-architecture&Filter.1.Value.1=arm64"
                        "&Filter.2.Name=vcpu-info.default-vcpus&Filter.2.Value.1=4"
                        "&Filter.3.Name=bare-metal&Filter.3.Value.1=false",
                        "instanceTypeSet", "instanceType");
  std::set<std::string> expected;
  for (const InstanceTypeInfo& t : w_.catalog().all()) {
    if (t.architecture == Architecture::Arm64 && t.vcpu == 4 && !t.bareMetal) {
      expected.insert(t.name);
    }
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);

  auto efa = allPages(w_, "DescribeInstanceTypes",
                      "Filter.1.Name=network-info.efa-supported&Filter.1.Value.1=true",
                      "instanceTypeSet", "instanceType");
  size_t efaTypes = std::count_if(w_.catalog().all().begin(), w_.catalog().all().end(),
                                  [](const InstanceTypeInfo& t) { return t.efaSupported; });
  EXPECT_EQ(efa.size(), efaTypes);
  for (const std::string& name : efa) {
    EXPECT_TRUE(w_.catalog().find(name)->efaSupported) << name;
  }

  auto cards = allPages(w_, "DescribeInstanceTypes",
                        "Filter.1.Name=network-info.maximum-network-cards&Filter.1.Value.1=32"
                        "&Filter.2.Name=memory-info.size-in-mib&Filter.2.Value.1=2097152",
                        "instanceTypeSet", "instanceType");
  EXPECT_EQ(cards, std::vector<std::string>{"p5.48xlarge"});
}

TEST_F(DescribeActionsTest, InstanceTypesRejectBadFiltersAndPageSizes) {
  expectError(w_.call("DescribeInstanceTypes", "Filter.1.Name=colour&Filter.1.Value.1=red"),
              "InvalidParameterValue", "'colour'");
  expectError(w_.call("DescribeInstanceTypes", "Filter.1.Name=tag:x&Filter.1.Value.1=y"),
              "InvalidParameterValue");
  expectError(w_.call("DescribeInstanceTypes", "MaxResults=4"), "InvalidParameterValue",
              "maxResults");
  expectError(w_.call("DescribeInstanceTypes", "MaxResults=101"), "InvalidParameterValue",
              "maxResults");
  expectError(w_.call("DescribeInstanceTypes", "NextToken=garbage"), "InvalidParameterValue",
              "NextToken");
  expectError(w_.call("DescribeInstanceTypes", "NextToken=" + encodeNextToken("").substr(0, 6)),
              "InvalidParameterValue", "NextToken");
}

TEST_F(DescribeActionsTest, InstanceTypePagesReturnEveryTypeOnce) {
  int pages = 0;
  auto names = allPages(w_, "DescribeInstanceTypes", "MaxResults=7", "instanceTypeSet",
                        "instanceType", &pages);
  ASSERT_EQ(names.size(), w_.catalog().size());
  std::vector<std::string> expected;
  for (const InstanceTypeInfo& t : w_.catalog().all()) {
    expected.push_back(t.name);
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(pages, static_cast<int>((w_.catalog().size() + 6) / 7));

  // Without MaxResults a page holds at most 100 types, as on EC2.
  auto first = w_.call("DescribeInstanceTypes");
  ASSERT_TRUE(first);
  Xml xml(*first);
  EXPECT_EQ(xml.items("instanceTypeSet").size(), 100u);
  EXPECT_FALSE(xml.nextToken().empty());
}

TEST_F(DescribeActionsTest, DryRunSucceedsWithoutAResponse) {
  expectError(w_.call("DescribeInstanceTypes", "DryRun=true"), "DryRunOperation");
  auto result = w_.call("DescribeSubnets", "DryRun=true");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().httpStatus, 412);
  // Invalid parameters are reported before the dry run.
  expectError(w_.call("DescribeSubnets", "DryRun=true&SubnetId.1=subnet-0123456789abcdef0"),
              "InvalidSubnetID.NotFound");
}

// ---- DescribeInstanceTypeOfferings

TEST_F(DescribeActionsTest, OfferingsCoverEveryTypeInEveryZone) {
  auto zones =
      allPages(w_, "DescribeInstanceTypeOfferings", "LocationType=availability-zone&MaxResults=50",
               "instanceTypeOfferingSet", "location");
  EXPECT_EQ(zones.size(), w_.catalog().size() * 3);
  auto types =
      allPages(w_, "DescribeInstanceTypeOfferings", "LocationType=availability-zone&MaxResults=50",
               "instanceTypeOfferingSet", "instanceType");
  std::set<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < types.size(); ++i) {
    pairs.insert({types[i], zones[i]});
  }
  EXPECT_EQ(pairs.size(), types.size()) << "an offering was returned twice";

  auto region =
      allPages(w_, "DescribeInstanceTypeOfferings", "", "instanceTypeOfferingSet", "location");
  EXPECT_EQ(region.size(), w_.catalog().size());
  EXPECT_TRUE(std::all_of(region.begin(), region.end(),
                          [](const std::string& l) { return l == "us-east-1"; }));

  auto ids = allPages(w_, "DescribeInstanceTypeOfferings",
                      "LocationType=availability-zone-id&Filter.1.Name=instance-type"
                      "&Filter.1.Value.1=m5.large",
                      "instanceTypeOfferingSet", "location");
  EXPECT_EQ(ids, (std::vector<std::string>{"use1-az1", "use1-az2", "use1-az4"}));
}

TEST_F(DescribeActionsTest, OfferingsFilterByLocation) {
  auto body = w_.call("DescribeInstanceTypeOfferings",
                      "LocationType=availability-zone&Filter.1.Name=location&Filter.1.Value.1=*b"
                      "&Filter.2.Name=instance-type&Filter.2.Value.1=p5.48*");
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  ASSERT_EQ(xml.items("instanceTypeOfferingSet").size(), 1u);
  auto item = xml.items("instanceTypeOfferingSet")[0];
  EXPECT_STREQ(item.child_value("instanceType"), "p5.48xlarge");
  EXPECT_STREQ(item.child_value("locationType"), "availability-zone");
  EXPECT_STREQ(item.child_value("location"), "us-east-1b");
  expectError(w_.call("DescribeInstanceTypeOfferings", "LocationType=planet"),
              "InvalidParameterValue");
  expectError(w_.call("DescribeInstanceTypeOfferings", "MaxResults=1001"), "InvalidParameterValue");
}

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

// ---- DescribeImages

TEST_F(DescribeActionsTest, ImagesAreSelectedByOwner) {
  auto self = allPages(w_, "DescribeImages", "Owner.1=self", "imagesSet", "name");
  EXPECT_EQ(
      std::set<std::string>(self.begin(), self.end()),
      (std::set<std::string>{"nodewright-custom-al2023-x86_64", "nodewright-custom-al2023-arm64"}));
  auto amazon = allPages(w_, "DescribeImages", "Owner.1=amazon", "imagesSet", "imageOwnerAlias");
  EXPECT_GT(amazon.size(), 50u);
  EXPECT_TRUE(std::all_of(amazon.begin(), amazon.end(),
                          [](const std::string& a) { return a == "amazon"; }));
  auto all = allPages(w_, "DescribeImages", "", "imagesSet", "imageId");
  EXPECT_EQ(all.size(), amazon.size() + self.size());
  auto byAccount =
      allPages(w_, "DescribeImages", "Owner.1=092701018921&Owner.2=self", "imagesSet", "name");
  EXPECT_EQ(byAccount.size(), 5 * 4 + 2u) << "Bottlerocket's four per version, and our two";
  expectError(w_.call("DescribeImages", "Owner.1=somebody"), "InvalidUserID.Malformed");
}

TEST_F(DescribeActionsTest, ImagesAreFilteredByNameArchitectureAndTags) {
  auto body = w_.call("DescribeImages",
                      "Owner.1=amazon&Filter.1.Name=name"
                      "&Filter.1.Value.1=amazon-eks-node-al2023-x86_64-standard-1.31-*");
  ASSERT_TRUE(body);
  Xml xml(*body);
  ASSERT_EQ(xml.items("imagesSet").size(), 1u);
  auto image = xml.items("imagesSet")[0];
  EXPECT_STREQ(image.child_value("architecture"), "x86_64");
  EXPECT_STREQ(image.child_value("imageState"), "available");
  EXPECT_STREQ(image.child_value("imageOwnerId"), "602401143452");
  EXPECT_STREQ(image.child_value("isPublic"), "true");
  EXPECT_STREQ(image.child_value("imageType"), "machine");
  EXPECT_STREQ(image.child_value("rootDeviceType"), "ebs");
  EXPECT_STREQ(image.child_value("virtualizationType"), "hvm");
  EXPECT_STREQ(image.child_value("creationDate"), "2024-11-15T00:00:00.000Z");
  EXPECT_STREQ(image.child_value("bootMode"), "uefi-preferred");
  const std::string id = image.child_value("imageId");

  // The SSM parameter of the alias names the same image.
  EXPECT_EQ(w_.world().ssmParameters.at(
                "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/"
                "recommended/image_id"),
            id);
  auto byId = allPages(w_, "DescribeImages", "ImageId.1=" + id, "imagesSet", "imageId");
  EXPECT_EQ(byId, std::vector<std::string>{id});

  auto arm = allPages(w_, "DescribeImages",
                      "Filter.1.Name=architecture&Filter.1.Value.1=arm64"
                      "&Filter.2.Name=tag:karpenter.sh/discovery&Filter.2.Value.1=nodewright",
                      "imagesSet", "name");
  EXPECT_EQ(arm, std::vector<std::string>{"nodewright-custom-al2023-arm64"});
  // Images whose boot mode parameter is not known have none, as on EC2.
  auto custom = w_.call("DescribeImages", "Owner.1=self");
  ASSERT_TRUE(custom);
  const Xml customDoc(*custom);
  for (auto item : customDoc.items("imagesSet")) {
    EXPECT_FALSE(item.child("bootMode")) << item.child_value("name");
  }
  auto tagKey = allPages(w_, "DescribeImages", "Filter.1.Name=tag-key&Filter.1.Value.1=Name",
                         "imagesSet", "name");
  EXPECT_EQ(tagKey.size(), 2u);
}

TEST_F(DescribeActionsTest, BadImageIdsAreMalformedOrNotFound) {
  expectError(w_.call("DescribeImages", "ImageId.1=ami-12"), "InvalidAMIID.Malformed", "ami-12");
  expectError(w_.call("DescribeImages", "ImageId.1=image-0123456789abcdef0"),
              "InvalidAMIID.Malformed");
  expectError(w_.call("DescribeImages", "ImageId.1=ami-0123456789abcdef0"), "InvalidAMIID.NotFound",
              "'[ami-0123456789abcdef0]'");
}

TEST(DescribeDeprecatedImagesTest, DeprecatedImagesNeedIncludeDeprecated) {
  WorldConfig config = defaultWorld();
  ImageConfig old;
  old.id = "ami-0aaaaaaaaaaaaaaa1";
  old.name = "old-public-image";
  old.ownerId = "111122223333";
  old.ownerAlias = "amazon";
  old.deprecationTime = "2020-01-01T00:00:00.000Z";
  config.images.push_back(old);
  DescribeWorld w(config);
  const std::string query = "Filter.1.Name=name&Filter.1.Value.1=old-*";
  EXPECT_TRUE(allPages(w, "DescribeImages", query, "imagesSet", "imageId").empty());
  auto body = w.call("DescribeImages", query + "&IncludeDeprecated=true");
  ASSERT_TRUE(body);
  const Xml doc(*body);
  auto items = doc.items("imagesSet");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_STREQ(items[0].child_value("deprecationTime"), "2020-01-01T00:00:00.000Z");
}

TEST(DescribeStoredPagesTest, ImagePagesReturnEveryImageOnce) {
  DescribeWorld w;
  auto all = allPages(w, "DescribeImages", "", "imagesSet", "imageId");
  auto paged = allPages(w, "DescribeImages", "MaxResults=6", "imagesSet", "imageId");
  EXPECT_EQ(paged, all);
  EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()).size(), paged.size());
}

// ---- DescribeSpotPriceHistory

TEST_F(DescribeActionsTest, SpotPricesWithoutStartTimeAreTheCurrentOnes) {
  auto body =
      w_.call("DescribeSpotPriceHistory", "InstanceType.1=m5.large&InstanceType.2=c5.large");
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  auto items = xml.items("spotPriceHistorySet");
  ASSERT_EQ(items.size(), 2u * 3 * 2);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (auto item : items) {
    const std::string type = item.child_value("instanceType");
    const std::string zone = item.child_value("availabilityZone");
    seen.insert({type, zone, item.child_value("productDescription")});
    auto expected = spotPrice(*w_.catalog().find(type), zone, w_.clock().now());
    ASSERT_TRUE(expected);
    EXPECT_EQ(item.child_value("spotPrice"), formatSpotPrice(*expected));
    EXPECT_EQ(item.child_value("timestamp"),
              aws::xml::formatTimestamp(spotPriceStepStart(spotPriceStepIndex(w_.clock().now()))));
  }
  EXPECT_EQ(seen.size(), items.size());
  EXPECT_TRUE(xml.nextToken().empty());
}

TEST_F(DescribeActionsTest, SpotPriceHistoryCoversTheWindowNewestFirst) {
  const core::TimePoint now = w_.clock().now();
  const std::string start = aws::xml::formatTimestamp(now - std::chrono::hours(5));
  auto body = w_.call("DescribeSpotPriceHistory",
                      "InstanceType.1=m5.large&ProductDescription.1=Linux/UNIX"
                      "&AvailabilityZone=us-east-1b&StartTime=" +
                          start);
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  auto stamps = xml.texts("spotPriceHistorySet", "timestamp");
  // The price in effect at StartTime and the five that followed it.
  ASSERT_EQ(stamps.size(), 6u);
  EXPECT_TRUE(std::is_sorted(stamps.rbegin(), stamps.rend()));
  EXPECT_LE(stamps.back(), start);
  for (auto item : xml.items("spotPriceHistorySet")) {
    EXPECT_STREQ(item.child_value("availabilityZone"), "us-east-1b");
    EXPECT_STREQ(item.child_value("productDescription"), "Linux/UNIX");
  }
}

TEST_F(DescribeActionsTest, SpotPriceHistoryPagesReturnEveryEntryOnce) {
  const std::string start = aws::xml::formatTimestamp(w_.clock().now() - std::chrono::hours(3));
  const std::string query =
      "InstanceType.1=m5.large&InstanceType.2=c5.large&InstanceType.3=p5.48xlarge&StartTime=" +
      start;
  auto all = allPages(w_, "DescribeSpotPriceHistory", query, "spotPriceHistorySet", "spotPrice");
  ASSERT_EQ(all.size(), 3u * 3 * 2 * 4);
  int pages = 0;
  auto types = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                        "spotPriceHistorySet", "instanceType", &pages);
  auto stamps = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                         "spotPriceHistorySet", "timestamp");
  auto zones = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                        "spotPriceHistorySet", "availabilityZone");
  auto products = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                           "spotPriceHistorySet", "productDescription");
  EXPECT_EQ(pages, 8);
  ASSERT_EQ(types.size(), all.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < types.size(); ++i) {
    keys.insert(types[i] + "|" + zones[i] + "|" + products[i] + "|" + stamps[i]);
  }
  EXPECT_EQ(keys.size(), all.size());
}

TEST_F(DescribeActionsTest, SpotPricesFollowTheClock) {
  auto at = [&] {
    auto body = w_.call("DescribeSpotPriceHistory",
                        "InstanceType.1=m5.xlarge&Filter.1.Name=availability-zone"
                        "&Filter.1.Value.1=us-east-1a&Filter.2.Name=product-description"
                        "&Filter.2.Value.1=Linux/UNIX (Amazon VPC)");
    EXPECT_TRUE(body);
    return body ? Xml(*body).texts("spotPriceHistorySet", "spotPrice") : std::vector<std::string>{};
  };
  std::set<std::string> prices;
  for (int hour = 0; hour < 24; ++hour) {
    auto now = at();
    ASSERT_EQ(now.size(), 1u);
    prices.insert(now[0]);
    w_.clock().advance(std::chrono::hours(1));
  }
  EXPECT_GT(prices.size(), 5u) << "the price moves in steps";
}

TEST_F(DescribeActionsTest, SpotPriceHistoryRejectsBadInput) {
  expectError(w_.call("DescribeSpotPriceHistory", "AvailabilityZone=us-east-1z"),
              "InvalidParameterValue", "us-east-1z");
  expectError(w_.call("DescribeSpotPriceHistory", "StartTime=yesterday"), "InvalidParameterValue",
              "StartTime");
  expectError(w_.call("DescribeSpotPriceHistory", "Filter.1.Name=colour&Filter.1.Value.1=x"),
              "InvalidParameterValue");
  expectError(w_.call("DescribeSpotPriceHistory", "NextToken=" + encodeNextToken("m5.large")),
              "InvalidParameterValue", "NextToken");
  auto unknown = w_.call("DescribeSpotPriceHistory", "InstanceType.1=m5.huge");
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(Xml(*unknown).items("spotPriceHistorySet").empty());
}

}  // namespace
}  // namespace nodewright::emulators::ec2
