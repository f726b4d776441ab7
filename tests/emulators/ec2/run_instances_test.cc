// RunInstances in process: the instance lifecycle on the fake clock, idempotency by client
// token, capacity faults per pool, subnet address accounting, launch templates under request
// parameters, and EC2's errors for bad launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using testing::kLaunchLatency;
using testing::kNodeGroup;
using testing::kOtherVpcGroup;
using testing::kSubnetA;
using testing::kSubnetB;
using testing::kTerminateLatency;
using testing::LaunchWorld;
using testing::limitCapacity;
using testing::Xml;

class RunInstancesTest : public ::testing::Test {
 protected:
  LaunchWorld w_;
};

TEST_F(RunInstancesTest, InstanceGoesPendingRunningShuttingDownTerminatedThenDisappears) {
  Xml run = w_.ok("RunInstances", w_.runParams());
  EXPECT_TRUE(std::string(run.root().child_value("reservationId")).starts_with("r-"));
  EXPECT_EQ(run.root().child_value("ownerId"), w_.world().accountId);
  auto items = run.items("instancesSet");
  ASSERT_EQ(items.size(), 1u);
  const std::string id = items[0].child_value("instanceId");
  EXPECT_STREQ(items[0].child("instanceState").child_value("code"), "0");
  EXPECT_STREQ(items[0].child("instanceState").child_value("name"), "pending");
  EXPECT_STREQ(items[0].child("placement").child_value("availabilityZone"), "us-east-1a");
  EXPECT_EQ(items[0].child_value("subnetId"), std::string(kSubnetA));
  EXPECT_STREQ(items[0].child_value("architecture"), "x86_64");
  const std::string ip = items[0].child_value("privateIpAddress");
  EXPECT_TRUE(ip.starts_with("10.0.")) << ip;
  std::string dashed = ip;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  EXPECT_EQ(items[0].child_value("privateDnsName"), "ip-" + dashed + ".ec2.internal");
  pugi::xml_node eni = items[0].child("networkInterfaceSet").child("item");
  EXPECT_TRUE(std::string(eni.child_value("networkInterfaceId")).starts_with("eni-"));
  EXPECT_STREQ(eni.child("attachment").child_value("deviceIndex"), "0");
  EXPECT_STREQ(eni.child("attachment").child_value("networkCardIndex"), "0");
  EXPECT_STREQ(eni.child_value("interfaceType"), "interface");
  EXPECT_EQ(eni.child("groupSet").child("item").child_value("groupId"), std::string(kNodeGroup));

  w_.advance(kLaunchLatency - seconds(1));
  EXPECT_EQ(w_.state(id), "pending");
  w_.advance(seconds(1));
  EXPECT_EQ(w_.state(id), "running");

  Xml terminated = w_.ok("TerminateInstances", {{"InstanceId.1", id}});
  pugi::xml_node change = terminated.items("instancesSet").at(0);
  EXPECT_STREQ(change.child("currentState").child_value("name"), "shutting-down");
  EXPECT_STREQ(change.child("currentState").child_value("code"), "32");
  EXPECT_STREQ(change.child("previousState").child_value("name"), "running");
  EXPECT_STREQ(change.child("previousState").child_value("code"), "16");

  w_.advance(kTerminateLatency);
  Xml gone = w_.ok("DescribeInstances", {{"InstanceId.1", id}});
  pugi::xml_node instance = LaunchWorld::firstInstance(gone);
  EXPECT_STREQ(instance.child("instanceState").child_value("code"), "48");
  EXPECT_STREQ(instance.child_value("privateDnsName"), "");
  EXPECT_FALSE(instance.child("networkInterfaceSet").child("item"));
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 0u);

  w_.advance(hours(1));
  EXPECT_EQ(w_.fails("DescribeInstances", {{"InstanceId.1", id}}).code,
            "InvalidInstanceID.NotFound");
  // The reservation went with its last instance, so nothing is left behind.
  EXPECT_EQ(w_.engine().store().liveCount(kind::kReservation), 0u);
}

TEST_F(RunInstancesTest, SameClientTokenReturnsTheSameReservation) {
  aws::ParamPairs request = w_.runParams(2);
  request.emplace_back("ClientToken", "run-1");
  Xml first = w_.ok("RunInstances", request);
  w_.advance(kLaunchLatency);
  Xml again = w_.ok("RunInstances", request);
  EXPECT_STREQ(first.root().child_value("reservationId"),
               again.root().child_value("reservationId"));
  EXPECT_EQ(LaunchWorld::instanceIds(first), LaunchWorld::instanceIds(again));
  // The replay shows the instances as they are now.
  EXPECT_EQ(again.texts("instancesSet", "clientToken"),
            (std::vector<std::string>{"run-1", "run-1"}));
  EXPECT_STREQ(again.items("instancesSet")[0].child("instanceState").child_value("name"),
               "running");
  EXPECT_EQ(w_.engine().stats().creates("run-1"), 1u);
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 2u);

  Xml other = w_.ok("RunInstances", w_.runParams());
  EXPECT_STRNE(other.root().child_value("reservationId"),
               first.root().child_value("reservationId"));
}

TEST_F(RunInstancesTest, MaxCountLaunchesOneReservationWithDistinctAddresses) {
  const int64_t before = w_.availableIps(kSubnetA);
  Xml run = w_.ok("RunInstances", w_.runParams(3));
  auto items = run.items("instancesSet");
  ASSERT_EQ(items.size(), 3u);
  std::set<std::string> ips;
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].child_value("amiLaunchIndex"), std::to_string(i));
    ips.insert(items[i].child_value("privateIpAddress"));
  }
  EXPECT_EQ(ips.size(), 3u);
  EXPECT_EQ(w_.availableIps(kSubnetA), before - 3);
}

TEST_F(RunInstancesTest, EmptyCapacityPoolGivesEc2sInsufficientCapacityError) {
  limitCapacity(w_.engine(), "m5.large", "us-east-1a", "on-demand");
  aws::ApiError e = w_.fails("RunInstances", w_.runParams());
  EXPECT_EQ(e.code, "InsufficientInstanceCapacity");
  EXPECT_EQ(e.message,
            "We currently do not have sufficient m5.large capacity in the Availability Zone you "
            "requested (us-east-1a). Our system will be working on provisioning additional "
            "capacity. You can currently get m5.large capacity by not specifying an Availability "
            "Zone in your request or choosing us-east-1b, us-east-1c.");
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 0u);

  aws::ParamPairs inB = w_.runParams();
  inB[4].second = std::string(kSubnetB);
  w_.ok("RunInstances", inB);
  w_.ok("RunInstances", w_.runParams(1, "m5.xlarge"));

  aws::ParamPairs spot = w_.runParams();
  spot.emplace_back("InstanceMarketOptions.MarketType", "spot");
  Xml spotRun = w_.ok("RunInstances", spot);  // the pool is on-demand only
  pugi::xml_node instance = spotRun.items("instancesSet").at(0);
  EXPECT_STREQ(instance.child_value("instanceLifecycle"), "spot");
  EXPECT_TRUE(std::string(instance.child_value("spotInstanceRequestId")).starts_with("sir-"));
  limitCapacity(w_.engine(), "*", "", "spot");
  EXPECT_EQ(w_.fails("RunInstances", spot).message,
            "There is no Spot capacity available that matches your request.");
}

TEST_F(RunInstancesTest, PartialCapacityLaunchesWhatFitsAboveMinCount) {
  limitCapacity(w_.engine(), "m5.large", "", "on-demand", 2);
  aws::ParamPairs request = w_.runParams(3);
  request[2].second = "3";  // MinCount
  EXPECT_EQ(w_.fails("RunInstances", request).code, "InsufficientInstanceCapacity");

  limitCapacity(w_.engine(), "c5.large", "", "on-demand", 2);
  request = w_.runParams(5, "c5.large");
  request[2].second = "1";
  EXPECT_EQ(w_.ok("RunInstances", request).items("instancesSet").size(), 2u);
  EXPECT_EQ(w_.fails("RunInstances", request).code, "InsufficientInstanceCapacity");
}

TEST_F(RunInstancesTest, SubnetRunsOutOfAddressesAndTerminationReturnsThem) {
  WorldConfig config = defaultWorld();
  config.vpcs[0].subnets[0].availableIps = 3;
  LaunchWorld small(config);
  Xml run = small.ok("RunInstances", small.runParams(3));
  EXPECT_EQ(small.availableIps(kSubnetA), 0);
  aws::ApiError e = small.fails("RunInstances", small.runParams());
  EXPECT_EQ(e.code, "InsufficientFreeAddressesInSubnet");
  EXPECT_EQ(e.message, "There are not enough free addresses in subnet '" + std::string(kSubnetA) +
                           "' to satisfy the requested number of instances.");

  const std::string id = LaunchWorld::instanceIds(run).at(0);
  small.ok("TerminateInstances", {{"InstanceId.1", id}});
  EXPECT_EQ(small.availableIps(kSubnetA), 1);
  small.ok("TerminateInstances", {{"InstanceId.1", id}});  // no second refund
  EXPECT_EQ(small.availableIps(kSubnetA), 1);
  small.ok("RunInstances", small.runParams());
  EXPECT_EQ(small.availableIps(kSubnetA), 0);
}

TEST_F(RunInstancesTest, PrefixesAndSecondaryAddressesComeFromTheSubnet) {
  const int64_t before = w_.availableIps(kSubnetA);
  Xml run =
      w_.ok("RunInstances", {{"ImageId", w_.image()},
                             {"InstanceType", "m5.large"},
                             {"MinCount", "1"},
                             {"MaxCount", "1"},
                             {"NetworkInterface.1.DeviceIndex", "0"},
                             {"NetworkInterface.1.SubnetId", std::string(kSubnetA)},
                             {"NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
                             {"NetworkInterface.1.Ipv4PrefixCount", "1"},
                             {"NetworkInterface.1.SecondaryPrivateIpAddressCount", "2"},
                             {"NetworkInterface.1.AssociatePublicIpAddress", "true"}});
  EXPECT_EQ(w_.availableIps(kSubnetA), before - 1 - 2 - 16);
  pugi::xml_node instance = run.items("instancesSet").at(0);
  pugi::xml_node eni = instance.child("networkInterfaceSet").child("item");
  const std::string prefix = eni.child("ipv4PrefixSet").child("item").child_value("ipv4Prefix");
  EXPECT_TRUE(prefix.ends_with("/28")) << prefix;
  int addresses = 0;
  for (pugi::xml_node ip : eni.child("privateIpAddressesSet").children("item")) {
    (void)ip;
    ++addresses;
  }
  EXPECT_EQ(addresses, 3);
  EXPECT_TRUE(std::string(instance.child_value("ipAddress")).starts_with("3."));
  EXPECT_TRUE(std::string(instance.child_value("dnsName")).ends_with(".compute-1.amazonaws.com"));

  w_.ok("TerminateInstances", {{"InstanceId.1", instance.child_value("instanceId")}});
  EXPECT_EQ(w_.availableIps(kSubnetA), before);
}

TEST_F(RunInstancesTest, RequestParametersOverrideTheLaunchTemplate) {
  w_.ok("CreateLaunchTemplate",
        {{"LaunchTemplateName", "base"},
         {"LaunchTemplateData.ImageId", w_.image()},
         {"LaunchTemplateData.InstanceType", "m5.large"},
         {"LaunchTemplateData.SecurityGroupId.1", std::string(kNodeGroup)},
         {"LaunchTemplateData.MetadataOptions.HttpTokens", "required"},
         {"LaunchTemplateData.MetadataOptions.HttpPutResponseHopLimit", "2"},
         {"LaunchTemplateData.TagSpecification.1.ResourceType", "instance"},
         {"LaunchTemplateData.TagSpecification.1.Tag.1.Key", "Name"},
         {"LaunchTemplateData.TagSpecification.1.Tag.1.Value", "from-template"},
         {"LaunchTemplateData.TagSpecification.1.Tag.2.Key", "team"},
         {"LaunchTemplateData.TagSpecification.1.Tag.2.Value", "a"}});
  Xml run = w_.ok("RunInstances", {{"LaunchTemplate.LaunchTemplateName", "base"},
                                   {"LaunchTemplate.Version", "$Latest"},
                                   {"InstanceType", "c5.large"},
                                   {"SubnetId", std::string(kSubnetB)},
                                   {"MinCount", "1"},
                                   {"MaxCount", "1"},
                                   {"TagSpecification.1.ResourceType", "instance"},
                                   {"TagSpecification.1.Tag.1.Key", "Name"},
                                   {"TagSpecification.1.Tag.1.Value", "from-request"}});
  pugi::xml_node instance = run.items("instancesSet").at(0);
  EXPECT_STREQ(instance.child_value("instanceType"), "c5.large");
  EXPECT_EQ(instance.child_value("imageId"), w_.image());
  EXPECT_STREQ(instance.child("placement").child_value("availabilityZone"), "us-east-1b");
  EXPECT_STREQ(instance.child("metadataOptions").child_value("httpTokens"), "required");
  EXPECT_STREQ(instance.child("metadataOptions").child_value("httpPutResponseHopLimit"), "2");
  std::map<std::string, std::string> tags;
  for (pugi::xml_node tag : instance.child("tagSet").children("item")) {
    tags[tag.child_value("key")] = tag.child_value("value");
  }
  EXPECT_EQ(tags["Name"], "from-request");
  EXPECT_EQ(tags["team"], "a");
  EXPECT_TRUE(tags["aws:ec2launchtemplate:id"].starts_with("lt-"));
  EXPECT_EQ(tags["aws:ec2launchtemplate:version"], "1");

  EXPECT_EQ(w_.fails("RunInstances", {{"LaunchTemplate.LaunchTemplateName", "absent"},
                                      {"MinCount", "1"},
                                      {"MaxCount", "1"}})
                .code,
            "InvalidLaunchTemplateName.NotFoundException");
}

struct RejectedLaunch {
  std::string name;
  aws::ParamPairs extra;  // replaces parameters of the same name in runParams()
  std::string code;
  std::string messagePart;
};

class RunInstancesRejectionTest : public ::testing::TestWithParam<RejectedLaunch> {
 protected:
  LaunchWorld w_;
};

TEST_P(RunInstancesRejectionTest, RejectsAsEc2Does) {
  aws::ParamPairs request = w_.runParams();
  for (const auto& param : GetParam().extra) {
    auto same = std::find_if(request.begin(), request.end(),
                             [&](const auto& p) { return p.first == param.first; });
    if (same == request.end()) {
      request.push_back(param);
    } else if (param.second.empty()) {
      request.erase(same);
    } else {
      same->second = param.second;
    }
  }
  aws::ApiError e = w_.fails("RunInstances", request);
  EXPECT_EQ(e.code, GetParam().code) << e.message;
  EXPECT_NE(e.message.find(GetParam().messagePart), std::string::npos) << e.message;
  EXPECT_EQ(w_.engine().store().liveCount(kind::kInstance), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RunInstancesRejectionTest,
    ::testing::Values(
        RejectedLaunch{"UnknownType",
                       {{"InstanceType", "m99.large"}},
                       "InvalidParameterValue",
                       "Invalid value 'm99.large' for InstanceType"},
        RejectedLaunch{"UnknownImage",
                       {{"ImageId", "ami-0000000000000000f"}},
                       "InvalidAMIID.NotFound",
                       "ami-0000000000000000f"},
        RejectedLaunch{"MalformedImage",
                       {{"ImageId", "image"}},
                       "InvalidAMIID.Malformed",
                       "Invalid id: \"image\""},
        RejectedLaunch{"ArmTypeOnX86Image",
                       {{"InstanceType", "m7g.large"}},
                       "InvalidParameterValue",
                       "architecture 'arm64'"},
        RejectedLaunch{"EfaOnM5Large",
                       {{"SubnetId", ""},
                        {"SecurityGroupId.1", ""},
                        {"NetworkInterface.1.DeviceIndex", "0"},
                        {"NetworkInterface.1.InterfaceType", "efa"},
                        {"NetworkInterface.1.SubnetId", std::string(kSubnetA)}},
                       "InvalidParameterCombination",
                       "Elastic Fabric Adapters"},
        RejectedLaunch{"GroupOfAnotherVpc",
                       {{"SecurityGroupId.1", std::string(kOtherVpcGroup)}},
                       "InvalidParameter",
                       "belong to different networks"},
        RejectedLaunch{"UnknownSubnet",
                       {{"SubnetId", "subnet-0123456789abcdef0"}},
                       "InvalidSubnetID.NotFound",
                       "subnet-0123456789abcdef0"},
        RejectedLaunch{"InterfacesWithInstanceGroups",
                       {{"SubnetId", ""}, {"NetworkInterface.1.DeviceIndex", "0"}},
                       "InvalidParameterCombination",
                       "instance-level security groups"},
        RejectedLaunch{"BadDeviceIndexIsNamed",
                       {{"SubnetId", ""},
                        {"SecurityGroupId.1", ""},
                        {"NetworkInterface.1.DeviceIndex", "zero"}},
                       "InvalidParameterValue",
                       "Invalid value 'zero' for NetworkInterface.1.DeviceIndex"},
        RejectedLaunch{"MissingMaxCount", {{"MaxCount", ""}}, "MissingParameter", "MaxCount"},
        RejectedLaunch{"ZeroMinCount", {{"MinCount", "0"}}, "InvalidParameterValue", "MinCount"},
        RejectedLaunch{"UntaggableType",
                       {{"TagSpecification.1.ResourceType", "launch-template"},
                        {"TagSpecification.1.Tag.1.Key", "a"}},
                       "InvalidParameterValue",
                       "'launch-template' is not a valid taggable resource type"},
        RejectedLaunch{
            "NoSubnetAndNoDefaultVpc", {{"SubnetId", ""}}, "VPCIdNotSpecified", "No default VPC"},
        RejectedLaunch{"ZoneOfAnotherSubnet",
                       {{"Placement.AvailabilityZone", "us-east-1b"}},
                       "InvalidParameterValue",
                       "availabilityZone"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::emulators::ec2
