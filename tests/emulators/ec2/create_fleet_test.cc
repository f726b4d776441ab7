// CreateFleet (instant) in process: pools chosen by price and priority, per-pool errors in the
// errorSet with fall-through to the next pool, spot and on-demand capacity, idempotency by
// client token, and the request-level errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "emulators/ec2/fleet.h"
#include "emulators/ec2/launch_fixture.h"
#include "emulators/ec2/spot_prices.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::kNodeGroup;
using testing::kSubnetA;
using testing::kSubnetB;
using testing::LaunchWorld;
using testing::limitCapacity;
using testing::Xml;

struct Override {
  Override(std::string type, std::string subnetId = std::string(kSubnetA),
           std::string availabilityZone = "us-east-1a", std::string prio = "")
      : instanceType(std::move(type)),
        subnet(std::move(subnetId)),
        zone(std::move(availabilityZone)),
        priority(std::move(prio)) {}

  std::string instanceType;
  std::string subnet;
  std::string zone;
  std::string priority;  // empty: none
};

class CreateFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w_.ok("CreateLaunchTemplate",
          {{"LaunchTemplateName", "fleet-lt"},
           {"LaunchTemplateData.ImageId", w_.image()},
           {"LaunchTemplateData.SecurityGroupId.1", std::string(kNodeGroup)},
           {"LaunchTemplateData.TagSpecification.1.ResourceType", "instance"},
           {"LaunchTemplateData.TagSpecification.1.Tag.1.Key", "from"},
           {"LaunchTemplateData.TagSpecification.1.Tag.1.Value", "template"}});
  }

  // Karpenter's CreateFleet: one template, overrides of type × subnet.
  aws::ParamPairs fleet(const std::vector<Override>& overrides, int total = 1,
                        const std::string& capacityType = "on-demand",
                        const std::string& strategy = "lowest-price") {
    aws::ParamPairs p{
        {"Type", "instant"},
        {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "fleet-lt"},
        {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
        {"TargetCapacitySpecification.TotalTargetCapacity", std::to_string(total)},
        {"TargetCapacitySpecification.DefaultTargetCapacityType", capacityType},
        {capacityType == "spot" ? "SpotOptions.AllocationStrategy"
                                : "OnDemandOptions.AllocationStrategy",
         strategy},
        {"TagSpecification.1.ResourceType", "fleet"},
        {"TagSpecification.1.Tag.1.Key", "karpenter.sh/nodepool"},
        {"TagSpecification.1.Tag.1.Value", "default"},
        {"TagSpecification.2.ResourceType", "instance"},
        {"TagSpecification.2.Tag.1.Key", "karpenter.sh/nodepool"},
        {"TagSpecification.2.Tag.1.Value", "default"}};
    for (size_t i = 0; i < overrides.size(); ++i) {
      const std::string prefix = "LaunchTemplateConfigs.1.Overrides." + std::to_string(i + 1) + ".";
      p.emplace_back(prefix + "InstanceType", overrides[i].instanceType);
      p.emplace_back(prefix + "SubnetId", overrides[i].subnet);
      p.emplace_back(prefix + "AvailabilityZone", overrides[i].zone);
      if (!overrides[i].priority.empty()) {
        p.emplace_back(prefix + "Priority", overrides[i].priority);
      }
    }
    return p;
  }

  // The instance type of each fleetInstanceSet item, with its instance count.
  static std::map<std::string, size_t> launchedTypes(const Xml& response) {
    std::map<std::string, size_t> out;
    for (pugi::xml_node item : response.items("fleetInstanceSet")) {
      for (pugi::xml_node id : item.child("instanceIds").children("item")) {
        (void)id;
        ++out[item.child_value("instanceType")];
      }
    }
    return out;
  }

  LaunchWorld w_;
};

TEST_F(CreateFleetTest, LowestPriceLaunchesTheCheapestOverride) {
  Xml out = w_.ok("CreateFleet", fleet({{"m5.xlarge"}, {"m5.large"}, {"c5.large"}}));
  EXPECT_TRUE(std::string(out.root().child_value("fleetId")).starts_with("fleet-"));
  EXPECT_TRUE(out.items("errorSet").empty());
  ASSERT_EQ(out.items("fleetInstanceSet").size(), 1u);
  pugi::xml_node item = out.items("fleetInstanceSet")[0];
  EXPECT_STREQ(item.child_value("instanceType"), "c5.large");  // 0.085 < 0.096 < 0.192
  EXPECT_STREQ(item.child_value("lifecycle"), "on-demand");
  pugi::xml_node overrides = item.child("launchTemplateAndOverrides").child("overrides");
  EXPECT_STREQ(overrides.child_value("instanceType"), "c5.large");
  EXPECT_EQ(overrides.child_value("subnetId"), std::string(kSubnetA));
  EXPECT_STREQ(overrides.child_value("availabilityZone"), "us-east-1a");
  pugi::xml_node spec =
      item.child("launchTemplateAndOverrides").child("launchTemplateSpecification");
  EXPECT_TRUE(std::string(spec.child_value("launchTemplateId")).starts_with("lt-"));
  EXPECT_STREQ(spec.child_value("version"), "$Latest");

  const std::string id = item.child("instanceIds").child_value("item");
  Xml described = w_.ok("DescribeInstances", {{"InstanceId.1", id}});
  pugi::xml_node instance = LaunchWorld::firstInstance(described);
  EXPECT_STREQ(instance.child_value("instanceType"), "c5.large");
  std::map<std::string, std::string> tags;
  for (pugi::xml_node tag : instance.child("tagSet").children("item")) {
    tags[tag.child_value("key")] = tag.child_value("value");
  }
  EXPECT_EQ(tags["karpenter.sh/nodepool"], "default");
  EXPECT_EQ(tags["from"], "template");
  EXPECT_EQ(tags["aws:ec2:fleet-id"], out.root().child_value("fleetId"));

  auto stored = w_.engine().store().get(kind::kFleet, out.root().child_value("fleetId"));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->state, "deleted");  // instant fleets are done once they answer
  ASSERT_NE(stored->tag("karpenter.sh/nodepool"), nullptr);
}

TEST_F(CreateFleetTest, EmptyPoolAddsAnErrorItemAndFallsThroughToTheNext) {
  limitCapacity(w_.engine(), "c5.large", "us-east-1a", "on-demand");
  Xml out =
      w_.ok("CreateFleet",
            fleet({{"m5.large"}, {"c5.large"}, {"c5.large", std::string(kSubnetB), "us-east-1b"}}));
  auto errors = out.items("errorSet");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_STREQ(errors[0].child_value("errorCode"), "InsufficientInstanceCapacity");
  EXPECT_STREQ(errors[0].child_value("lifecycle"), "on-demand");
  pugi::xml_node failed = errors[0].child("launchTemplateAndOverrides").child("overrides");
  EXPECT_STREQ(failed.child_value("instanceType"), "c5.large");
  EXPECT_STREQ(failed.child_value("availabilityZone"), "us-east-1a");
  EXPECT_NE(std::string(errors[0].child_value("errorMessage")).find("(us-east-1a)"),
            std::string::npos);
  // The next cheapest pool is the same type in the other zone.
  auto launched = out.items("fleetInstanceSet");
  ASSERT_EQ(launched.size(), 1u);
  EXPECT_STREQ(launched[0]
                   .child("launchTemplateAndOverrides")
                   .child("overrides")
                   .child_value("availabilityZone"),
               "us-east-1b");
}

TEST_F(CreateFleetTest, InvalidOverridesFailAloneAndAllFailingIsStillAnAnswer) {
  // Prioritized, so the fleet tries the bad pools first: an unknown type, and an arm64 type
  // for the template's x86_64 image.
  Xml out = w_.ok("CreateFleet", fleet({{"m99.large", std::string(kSubnetA), "us-east-1a", "0"},
                                        {"m7g.large", std::string(kSubnetA), "us-east-1a", "1"},
                                        {"m5.large", std::string(kSubnetA), "us-east-1a", "2"}},
                                       2, "on-demand", "prioritized"));
  std::vector<std::string> codes = out.texts("errorSet", "errorCode");
  EXPECT_EQ(codes, (std::vector<std::string>{"InvalidParameterValue", "InvalidParameterValue"}));
  EXPECT_EQ(launchedTypes(out), (std::map<std::string, size_t>{{"m5.large", 2}}));

  limitCapacity(w_.engine(), "*", "", "on-demand");
  Xml none = w_.ok("CreateFleet", fleet({{"m5.large"}, {"c5.large"}}));
  EXPECT_EQ(none.items("errorSet").size(), 2u);
  EXPECT_TRUE(none.items("fleetInstanceSet").empty());
  EXPECT_FALSE(std::string(none.root().child_value("fleetId")).empty());
}

TEST_F(CreateFleetTest, PartialPoolSpillsIntoTheNextPool) {
  limitCapacity(w_.engine(), "c5.large", "us-east-1a", "on-demand", 2);
  Xml out = w_.ok("CreateFleet", fleet({{"c5.large"}, {"m5.large"}}, 5));
  EXPECT_EQ(launchedTypes(out), (std::map<std::string, size_t>{{"c5.large", 2}, {"m5.large", 3}}));
  EXPECT_EQ(out.texts("errorSet", "errorCode"),
            std::vector<std::string>{"InsufficientInstanceCapacity"});
}

TEST_F(CreateFleetTest, PrioritizedFollowsPriorityNotPrice) {
  Xml out = w_.ok("CreateFleet", fleet({{"c5.large", std::string(kSubnetA), "us-east-1a", "2"},
                                        {"m5.xlarge", std::string(kSubnetA), "us-east-1a", "0"}},
                                       1, "on-demand", "prioritized"));
  EXPECT_EQ(launchedTypes(out), (std::map<std::string, size_t>{{"m5.xlarge", 1}}));
}

TEST_F(CreateFleetTest, SpotFleetLaunchesTheCheapestSpotPool) {
  std::vector<Override> overrides{{"m5.large"}, {"c5.large"}, {"t3.large"}, {"m5.xlarge"}};
  std::string cheapest;
  double best = 1e9;
  for (const Override& o : overrides) {
    double price = *spotPrice(*w_.catalog().find(o.instanceType), o.zone, w_.engine().time().now());
    if (price < best) {
      best = price;
      cheapest = o.instanceType;
    }
  }
  Xml out = w_.ok("CreateFleet", fleet(overrides, 1, "spot", "lowest-price"));
  ASSERT_EQ(out.items("fleetInstanceSet").size(), 1u);
  pugi::xml_node item = out.items("fleetInstanceSet")[0];
  EXPECT_STREQ(item.child_value("lifecycle"), "spot");
  EXPECT_EQ(item.child_value("instanceType"), cheapest);
  const std::string id = item.child("instanceIds").child_value("item");
  Xml described = w_.ok("DescribeInstances", {{"InstanceId.1", id}});
  EXPECT_STREQ(LaunchWorld::firstInstance(described).child_value("instanceLifecycle"), "spot");

  // A MaxPrice under the pool's price keeps the fleet out of it.
  aws::ParamPairs capped = fleet(overrides, 1, "spot", "lowest-price");
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (overrides[i].instanceType == cheapest) {
      capped.emplace_back(
          "LaunchTemplateConfigs.1.Overrides." + std::to_string(i + 1) + ".MaxPrice", "0.0001");
    }
  }
  Xml cappedOut = w_.ok("CreateFleet", capped);
  EXPECT_EQ(cappedOut.texts("errorSet", "errorCode"),
            std::vector<std::string>{"SpotMaxPriceTooLow"});
  EXPECT_NE(cappedOut.items("fleetInstanceSet").at(0).child_value("instanceType"), cheapest);

  // With that pool out of spot capacity, price-capacity-optimized moves on and reports it.
  limitCapacity(w_.engine(), cheapest, "us-east-1a", "spot");
  Xml next = w_.ok("CreateFleet", fleet(overrides, 1, "spot", "price-capacity-optimized"));
  EXPECT_EQ(next.items("fleetInstanceSet").size(), 1u);
  EXPECT_NE(next.items("fleetInstanceSet")[0].child_value("instanceType"), cheapest);
}

TEST_F(CreateFleetTest, EfaInterfacesOfTheTemplateLandOnTheOverridesSubnet) {
  w_.ok("CreateLaunchTemplate",
        {{"LaunchTemplateName", "efa"},
         {"LaunchTemplateData.ImageId", w_.image()},
         {"LaunchTemplateData.NetworkInterface.1.DeviceIndex", "0"},
         {"LaunchTemplateData.NetworkInterface.1.NetworkCardIndex", "0"},
         {"LaunchTemplateData.NetworkInterface.1.InterfaceType", "efa"},
         {"LaunchTemplateData.NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
         {"LaunchTemplateData.NetworkInterface.2.DeviceIndex", "0"},
         {"LaunchTemplateData.NetworkInterface.2.NetworkCardIndex", "1"},
         {"LaunchTemplateData.NetworkInterface.2.InterfaceType", "efa-only"},
         {"LaunchTemplateData.NetworkInterface.2.SecurityGroupId.1", std::string(kNodeGroup)}});
  aws::ParamPairs request = fleet({{"p5.48xlarge", std::string(kSubnetB), "us-east-1b"}});
  request[1].second = "efa";
  const int64_t before = w_.availableIps(kSubnetB);
  Xml out = w_.ok("CreateFleet", request);
  ASSERT_TRUE(out.items("errorSet").empty())
      << out.items("errorSet")[0].child_value("errorMessage");
  const std::string id =
      out.items("fleetInstanceSet").at(0).child("instanceIds").child_value("item");
  Xml described = w_.ok("DescribeInstances", {{"InstanceId.1", id}});
  std::vector<std::string> cards, types, ips;
  for (pugi::xml_node eni :
       LaunchWorld::firstInstance(described).child("networkInterfaceSet").children("item")) {
    cards.push_back(eni.child("attachment").child_value("networkCardIndex"));
    types.push_back(eni.child_value("interfaceType"));
    ips.push_back(eni.child_value("privateIpAddress"));
    EXPECT_EQ(eni.child_value("subnetId"), std::string(kSubnetB));
  }
  EXPECT_EQ(cards, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(types, (std::vector<std::string>{"efa", "efa-only"}));
  EXPECT_FALSE(ips[0].empty());
  EXPECT_TRUE(ips[1].empty());  // efa-only has no IP address, and takes none
  EXPECT_EQ(w_.availableIps(kSubnetB), before - 1);
}

TEST_F(CreateFleetTest, SameClientTokenReturnsTheSameFleetAndInstances) {
  aws::ParamPairs request = fleet({{"m5.large"}}, 2);
  request.emplace_back("ClientToken", "fleet-token");
  Xml first = w_.ok("CreateFleet", request);
  Xml again = w_.ok("CreateFleet", request);
  EXPECT_STREQ(first.root().child_value("fleetId"), again.root().child_value("fleetId"));
  EXPECT_EQ(launchedTypes(again), (std::map<std::string, size_t>{{"m5.large", 2}}));
  EXPECT_EQ(
      first.items("fleetInstanceSet")[0].child("instanceIds").first_child().child_value(),
      std::string(
          again.items("fleetInstanceSet")[0].child("instanceIds").first_child().child_value()));
  EXPECT_EQ(w_.engine().stats().creates("fleet-token"), 1u);
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 2u);
}

TEST_F(CreateFleetTest, RequestLevelErrorsCreateNothing) {
  aws::ParamPairs maintain = fleet({{"m5.large"}});
  maintain[0].second = "maintain";
  EXPECT_EQ(w_.fails("CreateFleet", maintain).code, "Unsupported");
  maintain[0].second = "sometimes";
  EXPECT_EQ(w_.fails("CreateFleet", maintain).message, "Invalid value 'sometimes' for Type");

  aws::ParamPairs noTotal = fleet({{"m5.large"}});
  std::erase_if(noTotal, [](const auto& p) { return p.first.ends_with("TotalTargetCapacity"); });
  aws::ApiError e = w_.fails("CreateFleet", noTotal);
  EXPECT_EQ(e.code, "MissingParameter");
  EXPECT_NE(e.message.find("TargetCapacitySpecification.TotalTargetCapacity"), std::string::npos);

  aws::ParamPairs unknown = fleet({{"m5.large"}});
  unknown[1].second = "absent";
  EXPECT_EQ(w_.fails("CreateFleet", unknown).code, "InvalidLaunchTemplateName.NotFoundException");

  aws::ParamPairs badWeight = fleet({{"m5.large"}});
  badWeight.emplace_back("LaunchTemplateConfigs.1.Overrides.1.WeightedCapacity", "heavy");
  EXPECT_EQ(w_.fails("CreateFleet", badWeight).message,
            "Invalid value 'heavy' for LaunchTemplateConfigs.1.Overrides.1.WeightedCapacity");
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 0u);
  EXPECT_TRUE(w_.engine().store().list(kind::kFleet).empty());
}

}  // namespace
}  // namespace nodewright::emulators::ec2
