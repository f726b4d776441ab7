// Ec2Client's describe calls against the EC2 emulator: paging, request shapes, and that what
// the emulator reports arrives field for field.
#include "aws/ec2_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "aws/ec2_client_fixture.h"
#include "aws/error_class.h"
#include "emulators/ec2/catalog.h"

namespace nodewright::aws {
namespace {

using testing::Ec2ClientTest;
using testing::kNodeGroup;
using testing::kSubnetB;

const std::string kCatalogFile = std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json";

// The ~1,400 types of ../shared/data, so DescribeInstanceTypes takes many pages.
class Ec2ClientFullCatalogTest : public Ec2ClientTest {
 protected:
  emulators::ec2::Ec2EmulatorOptions emulatorOptions() override {
    emulators::ec2::Ec2EmulatorOptions o;
    auto catalog = emulators::ec2::loadCatalog(kCatalogFile);
    EXPECT_TRUE(catalog) << catalog.error().message();
    if (catalog) {
      o.catalog = std::move(*catalog);
    }
    return o;
  }
};

TEST_F(Ec2ClientFullCatalogTest, DescribeInstanceTypesPagesThroughTheWholeCatalog) {
  const auto& catalog = server_->emulator().catalog();
  ASSERT_GT(catalog.size(), 1000u);
  auto types = ec2_->describeInstanceTypes();
  ASSERT_TRUE(types) << types.error().code << ": " << types.error().message;
  EXPECT_EQ(counting_.sent, static_cast<int>((catalog.size() + 99) / 100));
  ASSERT_EQ(types->size(), catalog.size());
  std::set<std::string> names;
  for (const InstanceTypeInfo& t : *types) {
    names.insert(t.instanceType);
    const auto* want = catalog.find(t.instanceType);
    ASSERT_NE(want, nullptr) << t.instanceType;
    EXPECT_EQ(t.defaultVCpus, want->vcpu.value_or(0)) << t.instanceType;
    EXPECT_EQ(t.memoryMiB, want->memoryMiB.value_or(0)) << t.instanceType;
    EXPECT_EQ(t.maximumNetworkInterfaces, want->maxNetworkInterfaces) << t.instanceType;
    EXPECT_EQ(t.efaSupported, want->efaSupported) << t.instanceType;
    EXPECT_EQ(t.maximumEfaInterfaces, want->efaSupported ? want->maximumEfaInterfaces : 0)
        << t.instanceType;
    EXPECT_EQ(t.gpuCount, want->gpus.count) << t.instanceType;
    if (!want->networkCards.empty()) {
      ASSERT_EQ(t.networkCards.size(), want->networkCards.size()) << t.instanceType;
      for (const auto& card : want->networkCards) {
        const NetworkCardInfo* got = t.card(card.index);
        ASSERT_NE(got, nullptr) << t.instanceType << " card " << card.index;
        EXPECT_EQ(got->maximumNetworkInterfaces, card.maximumNetworkInterfaces) << t.instanceType;
      }
    }
  }
  EXPECT_EQ(names.size(), catalog.size());
}

TEST_F(Ec2ClientFullCatalogTest, DescribeInstanceTypesByNameSplitsPastOneHundredNames) {
  std::vector<std::string> wanted;
  for (const auto& t : server_->emulator().catalog().all()) {
    if (wanted.size() < 150) {
      wanted.push_back(t.name);
    }
  }
  auto types = ec2_->describeInstanceTypes(wanted);
  ASSERT_TRUE(types) << types.error().code << ": " << types.error().message;
  EXPECT_EQ(counting_.sent, 2);
  std::set<std::string> got;
  for (const auto& t : *types) {
    got.insert(t.instanceType);
  }
  EXPECT_EQ(got, std::set<std::string>(wanted.begin(), wanted.end()));
}

TEST_F(Ec2ClientTest, ParsesTheNetworkFactsTheFilterNeeds) {
  auto types = ec2_->describeInstanceTypes({"m5.large", "m5.xlarge", "p5.48xlarge"});
  ASSERT_TRUE(types) << types.error().code << ": " << types.error().message;
  ASSERT_EQ(types->size(), 3u);
  std::map<std::string, InstanceTypeInfo> byName;
  for (auto& t : *types) {
    byName[t.instanceType] = t;
  }
  const InstanceTypeInfo& large = byName["m5.large"];
  EXPECT_EQ(large.defaultVCpus, 2);
  EXPECT_EQ(large.memoryMiB, 8192);
  EXPECT_EQ(large.maximumNetworkInterfaces, 3);
  EXPECT_EQ(large.ipv4AddressesPerInterface, 10);
  ASSERT_EQ(large.networkCards.size(), 1u);
  EXPECT_EQ(large.card(0)->maximumNetworkInterfaces, 3);
  EXPECT_EQ(large.card(1), nullptr);
  EXPECT_FALSE(large.efaSupported);
  EXPECT_EQ(large.architectures, std::vector<std::string>{"x86_64"});
  EXPECT_EQ(byName["m5.xlarge"].maximumNetworkInterfaces, 4);

  const InstanceTypeInfo& p5 = byName["p5.48xlarge"];
  EXPECT_TRUE(p5.efaSupported);
  EXPECT_GT(p5.maximumEfaInterfaces, 1);
  EXPECT_GT(p5.networkCards.size(), 1u);
  EXPECT_EQ(p5.gpuCount, 8);
  EXPECT_EQ(p5.gpuManufacturer, "NVIDIA");
}

TEST_F(Ec2ClientTest, AnUnknownInstanceTypeIsTheServicesError) {
  auto types = ec2_->describeInstanceTypes({"m5.large", "m5.enormous"});
  ASSERT_FALSE(types);
  EXPECT_EQ(types.error().code, "InvalidInstanceType");
  EXPECT_EQ(types.error().httpStatus, 400);
}

TEST_F(Ec2ClientTest, DescribesOfferingsInEveryZone) {
  auto offerings = ec2_->describeInstanceTypeOfferings();
  ASSERT_TRUE(offerings) << offerings.error().code << ": " << offerings.error().message;
  EXPECT_EQ(offerings->size(), server_->emulator().catalog().size() * 3);
  EXPECT_NE(std::find_if(offerings->begin(), offerings->end(),
                         [](const InstanceTypeOffering& o) {
                           return o.instanceType == "m5.large" && o.location == "us-east-1b";
                         }),
            offerings->end());

  auto zones = ec2_->describeAvailabilityZones();
  ASSERT_TRUE(zones) << zones.error().message;
  ASSERT_EQ(zones->size(), 3u);
  EXPECT_EQ((*zones)[0].zoneName, "us-east-1a");
  EXPECT_EQ((*zones)[0].zoneId, "use1-az1");
  EXPECT_EQ((*zones)[0].state, "available");
}

TEST_F(Ec2ClientTest, DescribesSubnetsAndSecurityGroupsByTagAndById) {
  const Filter discovery{"tag:karpenter.sh/discovery", {"nodewright"}};
  auto subnets = ec2_->describeSubnets({discovery});
  ASSERT_TRUE(subnets) << subnets.error().code << ": " << subnets.error().message;
  ASSERT_EQ(subnets->size(), 3u);
  std::set<std::string> zones;
  for (const Subnet& s : *subnets) {
    zones.insert(s.availabilityZone);
    EXPECT_EQ(s.vpcId, "vpc-0e2c4a6f8b1d30001");
    EXPECT_GT(s.availableIpAddressCount, 0);
    EXPECT_EQ(s.tags.at("karpenter.sh/discovery"), "nodewright");
    EXPECT_FALSE(s.availabilityZoneId.empty());
  }
  EXPECT_EQ(zones, (std::set<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"}));

  auto one = ec2_->describeSubnets({}, {kSubnetB});
  ASSERT_TRUE(one) << one.error().message;
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front().subnetId, kSubnetB);
  EXPECT_EQ(one->front().cidrBlock, "10.0.32.0/19");

  auto groups = ec2_->describeSecurityGroups({discovery});
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ(groups->front().groupId, kNodeGroup);
  EXPECT_EQ(groups->front().groupName, "nodewright-node");
  EXPECT_EQ(groups->front().vpcId, "vpc-0e2c4a6f8b1d30001");

  auto missing = ec2_->describeSecurityGroups({}, {"sg-0123456789abcdef0"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(classify(missing.error()), ErrorClass::NotFound) << missing.error().code;
}

TEST_F(Ec2ClientTest, DescribesImagesByIdAndByOwnerAndName) {
  ASSERT_FALSE(image().empty());
  auto byId = ec2_->describeImages({}, {image()});
  ASSERT_TRUE(byId) << byId.error().code << ": " << byId.error().message;
  ASSERT_EQ(byId->size(), 1u);
  EXPECT_EQ(byId->front().imageId, image());
  EXPECT_EQ(byId->front().architecture, "x86_64");
  EXPECT_EQ(byId->front().state, "available");
  EXPECT_EQ(byId->front().ownerId, "602401143452");
  EXPECT_FALSE(byId->front().creationDate.empty());

  auto byName = ec2_->describeImages({{"name", {"amazon-eks-node-al2023-arm64-standard-1.31-*"}}},
                                     {}, {"602401143452"});
  ASSERT_TRUE(byName) << byName.error().message;
  ASSERT_EQ(byName->size(), 1u);
  EXPECT_EQ(byName->front().architecture, "arm64");
}

TEST_F(Ec2ClientTest, SpotPriceHistoryKeepsTheNewestPricePerPool) {
  auto prices = ec2_->describeSpotPriceHistory({"m5.large", "c5.large"},
                                               clock_.now() - std::chrono::hours(6));
  ASSERT_TRUE(prices) << prices.error().code << ": " << prices.error().message;
  std::set<std::pair<std::string, std::string>> pools;
  for (const SpotPrice& p : *prices) {
    EXPECT_GT(p.price, 0) << p.instanceType << " " << p.availabilityZone;
    EXPECT_LE(p.timestamp, clock_.now());
    pools.insert({p.instanceType, p.availabilityZone});
  }
  EXPECT_EQ(pools.size(), prices->size());  // one per pool
  EXPECT_EQ(pools.size(), 6u);              // 2 types x 3 zones
}

}  // namespace
}  // namespace nodewright::aws
