// DescribeInstanceTypes and DescribeInstanceTypeOfferings, in process.
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
  EXPECT_EQ(neuron.child("coreInfo").child("count").text().as_int(), 2);
  // Trainium is no inference accelerator.
  EXPECT_FALSE(byName.at("trn1.2xlarge").child("inferenceAcceleratorInfo"));
}

// The accelerators of the other makers Karpenter knows: AMD and Habana GPUs, and Inferentia,
// which EC2 lists as a Neuron device and an inference accelerator.
TEST_F(DescribeActionsTest, InstanceTypesDescribeAmdHabanaAndInferentiaAccelerators) {
  auto body = w_.call("DescribeInstanceTypes",
                      "InstanceType.1=g4ad.xlarge&InstanceType.2=dl1.24xlarge"
                      "&InstanceType.3=inf2.xlarge");
  ASSERT_TRUE(body) << body.error().message;
  std::map<std::string, pugi::xml_node> byName;
  Xml xml(*body);
  for (auto item : xml.items("instanceTypeSet")) {
    byName[item.child_value("instanceType")] = item;
  }
  ASSERT_EQ(byName.size(), 3u);
  pugi::xml_node amd = byName.at("g4ad.xlarge").child("gpuInfo").child("gpus").child("item");
  EXPECT_STREQ(amd.child_value("manufacturer"), "AMD");
  EXPECT_STREQ(amd.child_value("name"), "Radeon Pro V520");
  EXPECT_EQ(amd.child("count").text().as_int(), 1);
  EXPECT_EQ(amd.child("memoryInfo").child("sizeInMiB").text().as_int(), 8192);
  pugi::xml_node gaudi = byName.at("dl1.24xlarge").child("gpuInfo").child("gpus").child("item");
  EXPECT_STREQ(gaudi.child_value("manufacturer"), "Habana");
  EXPECT_STREQ(gaudi.child_value("name"), "Gaudi HL-205");
  EXPECT_EQ(gaudi.child("count").text().as_int(), 8);
  pugi::xml_node inf = byName.at("inf2.xlarge");
  EXPECT_EQ(inf.child("neuronInfo")
                .child("neuronDevices")
                .child("item")
                .child("coreInfo")
                .child("count")
                .text()
                .as_int(),
            2);
  pugi::xml_node member =
      inf.child("inferenceAcceleratorInfo").child("accelerators").child("member");
  EXPECT_STREQ(member.child_value("manufacturer"), "AWS");
  EXPECT_STREQ(member.child_value("name"), "Inferentia2");
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

}  // namespace
}  // namespace nodewright::emulators::ec2
