// Ec2Client's launch templates, fleets, instances and tags against the EC2 emulator. Launch
// templates are read back with the test's own Query client, so the assertions see what the
// emulator stored, not what our parser makes of it.
#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <pugixml.hpp>

#include "aws/ec2_client.h"
#include "aws/ec2_client_fixture.h"
#include "aws/error_class.h"

namespace nodewright::aws {
namespace {

using testing::Ec2ClientTest;
using testing::kNodeGroup;
using testing::kSubnetA;
using testing::kSubnetB;

// base64("#!/bin/bash\necho secret-bootstrap-token\n")
constexpr const char* kUserData = "IyEvYmluL2Jhc2gKZWNobyBzZWNyZXQtYm9vdHN0cmFwLXRva2VuCg==";

LaunchTemplateData fourInterfaces(const std::string& image) {
  LaunchTemplateData d;
  d.imageId = image;
  d.userData = kUserData;
  d.instanceProfileName = "nodewright-node";
  d.blockDeviceMappings = {{"/dev/xvda", EbsBlockDevice{true, true, 3000, 125, 80, "", "", "gp3"}}};
  d.metadataOptions = {"enabled", "disabled", "required", 1};
  d.monitoring = false;
  for (int i = 0; i < 4; ++i) {
    LaunchTemplateNetworkInterface ni;
    ni.deviceIndex = i == 0 ? 0 : 1;
    ni.networkCardIndex = i;
    ni.deleteOnTermination = true;
    ni.description = "nodewright interface " + std::to_string(i);
    ni.groups = {kNodeGroup};
    ni.interfaceType = i == 3 ? "efa-only" : (i == 2 ? "efa" : "");
    if (i == 1) {
      ni.ipv4PrefixCount = 2;
    }
    d.networkInterfaces.push_back(ni);
  }
  d.networkInterfaces[0].deviceIndex = 0;
  d.resourceTags = {{"karpenter.sh/nodepool", "default"}, {"eks:eks-cluster-name", "nw"}};
  return d;
}

LaunchTemplateData simple(const std::string& image) {
  LaunchTemplateData d;
  d.imageId = image;
  d.securityGroupIds = {kNodeGroup};
  d.metadataOptions = {"enabled", "", "required", 1};
  return d;
}

// Captures the default logger at trace level while alive.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(Ec2ClientTest, CreatesALaunchTemplateWithFourInterfacesExactlyAsSent) {
  const Tags tags{{"karpenter.k8s.aws/ec2nodeclass", "default"}};
  std::string log;
  {
    LogCapture capture;
    auto created = ec2_->createLaunchTemplate("nw-four", fourInterfaces(image()), tags, "tok-1");
    ASSERT_TRUE(created) << created.error().code << ": " << created.error().message;
    EXPECT_EQ(created->launchTemplateName, "nw-four");
    EXPECT_TRUE(created->launchTemplateId.starts_with("lt-")) << created->launchTemplateId;
    EXPECT_EQ(created->tags, tags);
    log = capture.text();
  }
  EXPECT_NE(log.find("action=CreateLaunchTemplate"), std::string::npos) << log;
  EXPECT_EQ(log.find(kUserData), std::string::npos) << log;
  EXPECT_EQ(log.find("nodewright interface"), std::string::npos) << log;

  auto read = wire_->call("DescribeLaunchTemplateVersions",
                          {{"LaunchTemplateName", "nw-four"}, {"LaunchTemplateVersion.1", "1"}});
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->status, 200) << read->body;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(read->body.c_str()));
  pugi::xml_node data =
      doc.select_node("//launchTemplateVersionSet/item/launchTemplateData").node();
  ASSERT_TRUE(data) << read->body;
  EXPECT_STREQ(data.child_value("imageId"), image().c_str());
  EXPECT_STREQ(data.child_value("userData"), kUserData);
  EXPECT_STREQ(data.child("iamInstanceProfile").child_value("name"), "nodewright-node");
  EXPECT_STREQ(data.child("metadataOptions").child_value("httpTokens"), "required");
  EXPECT_STREQ(data.child("metadataOptions").child_value("httpPutResponseHopLimit"), "1");
  EXPECT_STREQ(data.child("metadataOptions").child_value("httpProtocolIpv6"), "disabled");
  EXPECT_STREQ(data.child("monitoring").child_value("enabled"), "false");
  pugi::xml_node ebs = data.child("blockDeviceMappingSet").child("item").child("ebs");
  EXPECT_STREQ(ebs.child_value("volumeSize"), "80");
  EXPECT_STREQ(ebs.child_value("volumeType"), "gp3");
  EXPECT_STREQ(ebs.child_value("encrypted"), "true");
  EXPECT_STREQ(ebs.child_value("iops"), "3000");
  EXPECT_STREQ(ebs.child_value("throughput"), "125");

  std::vector<pugi::xml_node> nis;
  for (pugi::xml_node item : data.child("networkInterfaceSet").children("item")) {
    nis.push_back(item);
  }
  ASSERT_EQ(nis.size(), 4u) << read->body;
  const char* types[] = {"", "", "efa", "efa-only"};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    pugi::xml_node ni = nis[static_cast<size_t>(i)];
    EXPECT_STREQ(ni.child_value("deviceIndex"), i == 0 ? "0" : "1");
    EXPECT_STREQ(ni.child_value("networkCardIndex"), std::to_string(i).c_str());
    EXPECT_STREQ(ni.child_value("deleteOnTermination"), "true");
    EXPECT_EQ(ni.child_value("description"), "nodewright interface " + std::to_string(i));
    EXPECT_STREQ(ni.child_value("interfaceType"), types[i]);
    EXPECT_EQ(bool(ni.child("interfaceType")), types[i][0] != '\0');
    EXPECT_STREQ(ni.child("groupSet").first_child().child_value(), kNodeGroup);
    EXPECT_EQ(std::distance(ni.child("groupSet").begin(), ni.child("groupSet").end()), 1);
    EXPECT_FALSE(ni.child("associatePublicIpAddress"));
    EXPECT_FALSE(ni.child("subnetId"));
    EXPECT_STREQ(ni.child_value("ipv4PrefixCount"), i == 1 ? "2" : "");
  }
  std::set<std::string> tagged;
  for (pugi::xml_node spec : data.child("tagSpecificationSet").children("item")) {
    tagged.insert(spec.child_value("resourceType"));
  }
  EXPECT_EQ(tagged, (std::set<std::string>{"instance", "volume", "network-interface"}));

  // The same call with the same client token gets the same template back.
  auto again = ec2_->createLaunchTemplate("nw-four", fourInterfaces(image()), tags, "tok-1");
  ASSERT_TRUE(again) << again.error().code << ": " << again.error().message;
}

TEST_F(Ec2ClientTest, DescribesAndDeletesLaunchTemplatesByNameAndTag) {
  const Tags owned{{"karpenter.k8s.aws/ec2nodeclass", "default"}};
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-a", simple(image()), owned));
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-b", simple(image()), owned));
  ASSERT_TRUE(ec2_->createLaunchTemplate("other", simple(image()), {}));

  auto byTag =
      ec2_->describeLaunchTemplates({}, {{"tag:karpenter.k8s.aws/ec2nodeclass", {"default"}}});
  ASSERT_TRUE(byTag) << byTag.error().code << ": " << byTag.error().message;
  std::set<std::string> names;
  for (const LaunchTemplate& lt : *byTag) {
    names.insert(lt.launchTemplateName);
    EXPECT_EQ(lt.tags, owned);
    EXPECT_EQ(lt.latestVersionNumber, 1);
  }
  EXPECT_EQ(names, (std::set<std::string>{"nw-a", "nw-b"}));

  auto byName = ec2_->describeLaunchTemplates({"nw-b"});
  ASSERT_TRUE(byName) << byName.error().message;
  ASSERT_EQ(byName->size(), 1u);
  EXPECT_EQ(byName->front().launchTemplateName, "nw-b");

  ASSERT_TRUE(ec2_->deleteLaunchTemplate("nw-b"));
  auto gone = ec2_->describeLaunchTemplates({"nw-b"});
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, "InvalidLaunchTemplateName.NotFoundException");
  EXPECT_EQ(classify(gone.error()), ErrorClass::NotFound);
  auto taken = ec2_->createLaunchTemplate("nw-a", simple(image()), owned);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, "InvalidLaunchTemplateName.AlreadyExistsException");
}

FleetRequest fleetOf(const std::vector<FleetOverride>& overrides, const std::string& token) {
  FleetRequest r;
  r.launchTemplateConfigs = {{"nw-fleet", "$Latest", overrides}};
  r.capacityType = "on-demand";
  r.allocationStrategy = "lowest-price";
  r.clientToken = token;
  r.tags = {{"karpenter.sh/nodepool", "default"}, {"karpenter.sh/nodeclaim", "default-abc"}};
  return r;
}

TEST_F(Ec2ClientTest, CreateFleetReportsEachFailedPoolAndLaunchesInTheNext) {
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-fleet", simple(image()), {}));
  putFaults(R"({"capacity": [{"instanceType": "m5.large", "zone": "us-east-1a",
                              "capacityType": "on-demand"}]})");
  // Priorities make the order certain: the dry pool first.
  const FleetRequest request = fleetOf({{"m5.large", kSubnetA, "us-east-1a", 1.0, std::nullopt},
                                        {"m5.large", kSubnetB, "us-east-1b", 2.0, std::nullopt}},
                                       "claim-default-abc");
  auto fleet = ec2_->createFleet(request);
  ASSERT_TRUE(fleet) << fleet.error().code << ": " << fleet.error().message;
  EXPECT_TRUE(fleet->fleetId.starts_with("fleet-")) << fleet->fleetId;
  ASSERT_EQ(fleet->errors.size(), 1u);
  EXPECT_EQ(fleet->errors[0].instanceType, "m5.large");
  EXPECT_EQ(fleet->errors[0].subnetId, kSubnetA);
  EXPECT_EQ(fleet->errors[0].availabilityZone, "us-east-1a");
  EXPECT_EQ(fleet->errors[0].errorCode, "InsufficientInstanceCapacity");
  EXPECT_FALSE(fleet->errors[0].errorMessage.empty());
  ASSERT_EQ(fleet->instanceIds.size(), 1u);
  EXPECT_EQ(fleet->instanceType, "m5.large");
  EXPECT_EQ(fleet->subnetId, kSubnetB);
  EXPECT_EQ(fleet->availabilityZone, "us-east-1b");
  EXPECT_EQ(fleet->lifecycle, "on-demand");

  // A retry with the same client token is the same launch, not a second one.
  auto retry = ec2_->createFleet(request);
  ASSERT_TRUE(retry) << retry.error().message;
  EXPECT_EQ(retry->instanceIds, fleet->instanceIds);
  auto all = ec2_->describeInstances({});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(Ec2ClientTest, AFleetWithNoCapacityLeftListsEveryPool) {
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-fleet", simple(image()), {}));
  putFaults(R"({"capacity": [{"instanceType": "m5.large", "capacityType": "on-demand"}]})");
  auto fleet = ec2_->createFleet(fleetOf(
      {{"m5.large", kSubnetA, "us-east-1a", {}, {}}, {"m5.large", kSubnetB, "us-east-1b", {}, {}}},
      "claim-dry"));
  ASSERT_TRUE(fleet) << fleet.error().message;
  EXPECT_TRUE(fleet->instanceIds.empty());
  ASSERT_EQ(fleet->errors.size(), 2u);
  std::set<std::string> zones;
  for (const FleetError& e : fleet->errors) {
    EXPECT_EQ(e.errorCode, "InsufficientInstanceCapacity");
    zones.insert(e.availabilityZone);
  }
  EXPECT_EQ(zones, (std::set<std::string>{"us-east-1a", "us-east-1b"}));
}

// A template's Placement (tenancy, placement group and partition) reaches the instance, and
// DescribeInstances and DescribePlacementGroups read back what EC2 reports.
TEST_F(Ec2ClientTest, PlacementReachesTheInstanceAndReadsBack) {
  auto created =
      wire_->call("CreatePlacementGroup",
                  {{"GroupName", "kafka"}, {"Strategy", "partition"}, {"PartitionCount", "3"}});
  ASSERT_TRUE(created) << created.error().message();
  ASSERT_EQ(created->status, 200) << created->body;
  auto groups = ec2_->describePlacementGroups({{"state", {"available"}}}, {}, {"kafka"});
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  const PlacementGroup& group = groups->front();
  EXPECT_TRUE(group.groupId.starts_with("pg-")) << group.groupId;
  EXPECT_EQ(group.groupName, "kafka");
  EXPECT_EQ(group.strategy, "partition");
  EXPECT_EQ(group.partitionCount, 3);
  EXPECT_EQ(group.state, "available");
  auto unknown = ec2_->describePlacementGroups({}, {}, {"nope"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "InvalidPlacementGroup.Unknown");

  LaunchTemplateData data = simple(image());
  data.tenancy = "dedicated";
  data.placementGroupId = group.groupId;
  data.placementPartition = 2;
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-fleet", data, {}));
  auto fleet = ec2_->createFleet(fleetOf({{"m5.large", kSubnetA, "us-east-1a", {}, {}}}, "placed"));
  ASSERT_TRUE(fleet) << fleet.error().message;
  ASSERT_EQ(fleet->instanceIds.size(), 1u);
  auto described = ec2_->describeInstances(fleet->instanceIds);
  ASSERT_TRUE(described) << described.error().message;
  ASSERT_EQ(described->size(), 1u);
  const Instance& instance = described->front();
  EXPECT_EQ(instance.tenancy, "dedicated");
  EXPECT_EQ(instance.placementGroupId, group.groupId);
  EXPECT_EQ(instance.partitionNumber, 2);
  EXPECT_EQ(instance.platform, "");
}

TEST_F(Ec2ClientTest, DescribesTagsAndTerminatesInstances) {
  ASSERT_TRUE(ec2_->createLaunchTemplate("nw-fleet", simple(image()), {}));
  auto fleet = ec2_->createFleet(fleetOf({{"m5.xlarge", kSubnetB, "us-east-1b", {}, {}}}, "t"));
  ASSERT_TRUE(fleet) << fleet.error().message;
  ASSERT_EQ(fleet->instanceIds.size(), 1u);
  const std::string id = fleet->instanceIds[0];

  auto described = ec2_->describeInstances({id});
  ASSERT_TRUE(described) << described.error().code << ": " << described.error().message;
  ASSERT_EQ(described->size(), 1u);
  const Instance& i = described->front();
  EXPECT_EQ(i.instanceId, id);
  EXPECT_EQ(i.instanceType, "m5.xlarge");
  EXPECT_EQ(i.imageId, image());
  EXPECT_EQ(i.subnetId, kSubnetB);
  EXPECT_EQ(i.availabilityZone, "us-east-1b");
  EXPECT_EQ(i.vpcId, "vpc-0e2c4a6f8b1d30001");
  EXPECT_TRUE(i.state == "pending" || i.state == "running") << i.state;
  EXPECT_FALSE(i.privateIpAddress.empty());
  EXPECT_EQ(i.lifecycle, "");
  EXPECT_EQ(i.securityGroupIds, std::vector<std::string>{kNodeGroup});
  ASSERT_EQ(i.networkInterfaces.size(), 1u);
  EXPECT_EQ(i.networkInterfaces[0].subnetId, kSubnetB);
  EXPECT_EQ(i.tags.at("karpenter.sh/nodeclaim"), "default-abc");

  ASSERT_TRUE(ec2_->createTags({id}, {{"karpenter.sh/registered", "true"}}));
  auto tagged = ec2_->describeInstances({}, {{"tag:karpenter.sh/registered", {"true"}}});
  ASSERT_TRUE(tagged) << tagged.error().message;
  ASSERT_EQ(tagged->size(), 1u);
  EXPECT_EQ(tagged->front().instanceId, id);

  auto terminated = ec2_->terminateInstances({id});
  ASSERT_TRUE(terminated) << terminated.error().code << ": " << terminated.error().message;
  ASSERT_EQ(terminated->size(), 1u);
  EXPECT_EQ(terminated->front().instanceId, id);
  EXPECT_EQ(terminated->front().currentState, "shutting-down");
  EXPECT_TRUE(terminated->front().previousState == "pending" ||
              terminated->front().previousState == "running");

  auto unknown = ec2_->describeInstances({"i-0123456789abcdef0"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "InvalidInstanceID.NotFound");
  EXPECT_EQ(classify(unknown.error()), ErrorClass::NotFound);
}

}  // namespace
}  // namespace nodewright::aws
