// The mutating actions' responses as botocore, the reference AWS client, parses them offline
// (scripts/botocore_parse.py): every body goes through botocore's parser with the operation's
// output shape, and no element may be one the shape does not name (botocore would drop it).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "aws/xml.h"
#include "emulators/ec2/launch_fixture.h"
#include "support/emulators/ec2_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;
using testing::kNodeGroup;
using testing::kSubnetA;
using testing::LaunchWorld;
using testing::limitCapacity;
using testing::Xml;

class LaunchBotocoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(false, false)) {
      FAIL() << *missing;
    }
  }

  // Queues the response to `action` (an error document when it fails) under `label`.
  std::string add(const std::string& action, const aws::ParamPairs& params,
                  const std::string& label = "") {
    auto body = w_.call(action, params);
    std::string text = body ? *body : aws::xml::ec2ErrorDocument(body.error(), "req-1");
    const int status = body ? 200 : body.error().httpStatus;
    files_.push_back(std::make_unique<emulators::testing::TempFile>(text, ".xml"));
    const std::string op = label.empty() ? action : action + "#" + label;
    args_.push_back("ec2:" + op + ":" + std::to_string(status) + ":" + files_.back()->path());
    return text;
  }

  Json parseAll() {
    auto run = emulators::testing::runScript("botocore_parse.py", args_);
    EXPECT_TRUE(run.ok()) << run.describe();
    auto out = emulators::testing::parseScriptOutput(run);
    EXPECT_TRUE(out) << out.error().message();
    if (!out) {
      return Json::object();
    }
    for (auto& [op, entry] : out->items()) {
      EXPECT_EQ(entry.value("dropped", Json::array()), Json::array())
          << op << ": elements botocore's shape does not name";
    }
    return *out;
  }

  LaunchWorld w_;
  std::vector<std::unique_ptr<emulators::testing::TempFile>> files_;
  std::vector<std::string> args_;
};

TEST_F(LaunchBotocoreTest, EveryResponseParsesWithNothingDropped) {
  add("CreateLaunchTemplate",
      {{"LaunchTemplateName", "karpenter.k8s.aws/1"},
       {"LaunchTemplateData.ImageId", w_.image()},
       {"LaunchTemplateData.InstanceType", "m5.large"},
       {"LaunchTemplateData.UserData", "IyEvYmluL2Jhc2g="},
       {"LaunchTemplateData.NetworkInterface.1.DeviceIndex", "0"},
       {"LaunchTemplateData.NetworkInterface.1.AssociatePublicIpAddress", "true"},
       {"LaunchTemplateData.NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
       {"LaunchTemplateData.NetworkInterface.1.Ipv4PrefixCount", "1"},
       {"LaunchTemplateData.NetworkInterface.1.ConnectionTrackingSpecification.UdpTimeout", "45"},
       {"LaunchTemplateData.CpuOptions.NestedVirtualization", "disabled"},
       {"LaunchTemplateData.BlockDeviceMapping.1.DeviceName", "/dev/xvda"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeSize", "20"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeType", "gp3"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.Iops", "3000"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.Throughput", "125"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.Encrypted", "true"},
       {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.DeleteOnTermination", "true"},
       {"LaunchTemplateData.MetadataOptions.HttpTokens", "required"},
       {"LaunchTemplateData.MetadataOptions.HttpPutResponseHopLimit", "1"},
       {"LaunchTemplateData.MetadataOptions.HttpEndpoint", "enabled"},
       {"LaunchTemplateData.IamInstanceProfile.Name", "KarpenterNodeInstanceProfile"},
       {"LaunchTemplateData.Monitoring.Enabled", "false"},
       {"LaunchTemplateData.InstanceMarketOptions.MarketType", "spot"},
       {"LaunchTemplateData.CapacityReservationSpecification.CapacityReservationPreference",
        "open"},
       {"LaunchTemplateData.PrivateDnsNameOptions.HostnameType", "ip-name"},
       {"LaunchTemplateData.TagSpecification.1.ResourceType", "instance"},
       {"LaunchTemplateData.TagSpecification.1.Tag.1.Key", "karpenter.sh/nodepool"},
       {"LaunchTemplateData.TagSpecification.1.Tag.1.Value", "default"},
       {"TagSpecification.1.ResourceType", "launch-template"},
       {"TagSpecification.1.Tag.1.Key", "karpenter.k8s.aws/cluster"},
       {"TagSpecification.1.Tag.1.Value", "nodewright"}});
  add("DescribeLaunchTemplates", {{"LaunchTemplateName.1", "karpenter.k8s.aws/1"}});
  add("DescribeLaunchTemplateVersions",
      {{"LaunchTemplateName", "karpenter.k8s.aws/1"}, {"LaunchTemplateVersion.1", "$Latest"}});
  const std::string run =
      add("RunInstances", {{"LaunchTemplate.LaunchTemplateName", "karpenter.k8s.aws/1"},
                           {"NetworkInterface.1.DeviceIndex", "0"},
                           {"NetworkInterface.1.SubnetId", std::string(kSubnetA)},
                           {"NetworkInterface.1.AssociatePublicIpAddress", "true"},
                           {"NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
                           {"NetworkInterface.1.Ipv4PrefixCount", "1"},
                           {"MinCount", "2"},
                           {"MaxCount", "2"},
                           {"ClientToken", "botocore"}});
  limitCapacity(w_.engine(), "c5.large", "us-east-1a", "on-demand");
  add("CreateFleet", {{"Type", "instant"},
                      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName",
                       "karpenter.k8s.aws/1"},
                      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
                      {"LaunchTemplateConfigs.1.Overrides.1.InstanceType", "c5.large"},
                      {"LaunchTemplateConfigs.1.Overrides.1.SubnetId", std::string(kSubnetA)},
                      {"LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone", "us-east-1a"},
                      {"LaunchTemplateConfigs.1.Overrides.1.ImageId", w_.image()},
                      {"LaunchTemplateConfigs.1.Overrides.1.Priority", "0"},
                      {"LaunchTemplateConfigs.1.Overrides.2.InstanceType", "m5.large"},
                      {"LaunchTemplateConfigs.1.Overrides.2.SubnetId", std::string(kSubnetA)},
                      {"LaunchTemplateConfigs.1.Overrides.2.AvailabilityZone", "us-east-1a"},
                      {"LaunchTemplateConfigs.1.Overrides.2.WeightedCapacity", "1"},
                      {"LaunchTemplateConfigs.1.Overrides.2.Priority", "1"},
                      {"TargetCapacitySpecification.TotalTargetCapacity", "1"},
                      {"TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand"},
                      {"OnDemandOptions.AllocationStrategy", "prioritized"},
                      {"TagSpecification.1.ResourceType", "fleet"},
                      {"TagSpecification.1.Tag.1.Key", "karpenter.sh/nodepool"},
                      {"TagSpecification.1.Tag.1.Value", "default"}});
  w_.advance(testing::kLaunchLatency);
  add("DescribeInstances", {{"Filter.1.Name", "tag-key"},
                            {"Filter.1.Value.1", "karpenter.sh/nodepool"},
                            {"Filter.2.Name", "instance-state-name"},
                            {"Filter.2.Value.1", "pending"},
                            {"Filter.2.Value.2", "running"}});
  const std::string first = Xml(run).items("instancesSet").at(0).child_value("instanceId");
  add("CreateTags", {{"ResourceId.1", first}, {"Tag.1.Key", "Name"}, {"Tag.1.Value", "a"}});
  add("TerminateInstances", {{"InstanceId.1", first}});
  add("DeleteLaunchTemplate", {{"LaunchTemplateName", "karpenter.k8s.aws/1"}});
  add("CreateFleet", {{"Type", "maintain"}}, "unsupported");
  Json out = parseAll();

  const Json& lt = out["CreateLaunchTemplate"]["parsed"]["LaunchTemplate"];
  EXPECT_EQ(lt["LaunchTemplateName"], "karpenter.k8s.aws/1");
  EXPECT_EQ(lt["LatestVersionNumber"], 1);
  EXPECT_EQ(lt["Tags"][0]["Key"], "karpenter.k8s.aws/cluster");
  EXPECT_EQ(out["DescribeLaunchTemplates"]["parsed"]["LaunchTemplates"].size(), 1u);

  const Json& data = out["DescribeLaunchTemplateVersions"]["parsed"]["LaunchTemplateVersions"][0]
                        ["LaunchTemplateData"];
  EXPECT_EQ(data["NetworkInterfaces"][0]["Groups"], Json::array({std::string(kNodeGroup)}));
  EXPECT_EQ(data["NetworkInterfaces"][0]["AssociatePublicIpAddress"], true);
  EXPECT_EQ(data["NetworkInterfaces"][0]["Ipv4PrefixCount"], 1);
  EXPECT_EQ(data["NetworkInterfaces"][0]["ConnectionTrackingSpecification"],
            Json({{"UdpTimeout", 45}}));
  EXPECT_EQ(data["CpuOptions"], Json({{"NestedVirtualization", "disabled"}}));
  EXPECT_EQ(data["BlockDeviceMappings"][0]["Ebs"]["Throughput"], 125);
  EXPECT_EQ(data["MetadataOptions"]["HttpTokens"], "required");
  EXPECT_EQ(data["IamInstanceProfile"]["Name"], "KarpenterNodeInstanceProfile");
  EXPECT_EQ(data["InstanceMarketOptions"]["MarketType"], "spot");
  EXPECT_EQ(data["TagSpecifications"][0]["Tags"][0]["Value"], "default");
  EXPECT_EQ(data["UserData"], "IyEvYmluL2Jhc2g=");

  const Json& reservation = out["RunInstances"]["parsed"];
  EXPECT_TRUE(reservation["ReservationId"].get<std::string>().starts_with("r-"));
  ASSERT_EQ(reservation["Instances"].size(), 2u);
  const Json& instance = reservation["Instances"][0];
  EXPECT_EQ(instance["State"], Json({{"Code", 0}, {"Name", "pending"}}));
  EXPECT_EQ(instance["InstanceLifecycle"], "spot");
  EXPECT_EQ(instance["Placement"]["AvailabilityZone"], "us-east-1a");
  EXPECT_TRUE(instance["LaunchTime"].is_string());
  EXPECT_TRUE(instance["PublicIpAddress"].is_string());
  EXPECT_EQ(instance["ClientToken"], "botocore");
  EXPECT_EQ(instance["MetadataOptions"]["HttpTokens"], "required");
  EXPECT_TRUE(instance["IamInstanceProfile"]["Arn"].get<std::string>().ends_with(
      "instance-profile/KarpenterNodeInstanceProfile"));
  const Json& eni = instance["NetworkInterfaces"][0];
  EXPECT_EQ(eni["Attachment"]["NetworkCardIndex"], 0);
  EXPECT_EQ(eni["Attachment"]["DeviceIndex"], 0);
  EXPECT_EQ(eni["Groups"][0]["GroupId"], std::string(kNodeGroup));
  EXPECT_EQ(eni["Ipv4Prefixes"].size(), 1u);
  EXPECT_EQ(eni["InterfaceType"], "interface");
  EXPECT_EQ(instance["BlockDeviceMappings"][0]["DeviceName"], "/dev/xvda");

  const Json& fleet = out["CreateFleet"]["parsed"];
  EXPECT_TRUE(fleet["FleetId"].get<std::string>().starts_with("fleet-"));
  ASSERT_EQ(fleet["Errors"].size(), 1u);
  EXPECT_EQ(fleet["Errors"][0]["ErrorCode"], "InsufficientInstanceCapacity");
  EXPECT_EQ(fleet["Errors"][0]["Lifecycle"], "on-demand");
  EXPECT_EQ(fleet["Errors"][0]["LaunchTemplateAndOverrides"]["Overrides"]["InstanceType"],
            "c5.large");
  EXPECT_EQ(fleet["Errors"][0]["LaunchTemplateAndOverrides"]["Overrides"]["Priority"], 0.0);
  ASSERT_EQ(fleet["Instances"].size(), 1u);
  EXPECT_EQ(fleet["Instances"][0]["InstanceType"], "m5.large");
  EXPECT_EQ(fleet["Instances"][0]["InstanceIds"].size(), 1u);
  EXPECT_EQ(fleet["Instances"][0]["Lifecycle"], "on-demand");
  EXPECT_EQ(fleet["Instances"][0]["LaunchTemplateAndOverrides"]["Overrides"]["AvailabilityZone"],
            "us-east-1a");
  EXPECT_TRUE(fleet["Instances"][0]["LaunchTemplateAndOverrides"]["LaunchTemplateSpecification"]
                   ["LaunchTemplateId"]
                       .get<std::string>()
                       .starts_with("lt-"));

  const Json& reservations = out["DescribeInstances"]["parsed"]["Reservations"];
  ASSERT_EQ(reservations.size(), 2u);
  size_t running = 0;
  for (const Json& r : reservations) {
    EXPECT_EQ(r["OwnerId"], w_.world().accountId);
    for (const Json& i : r["Instances"]) {
      running += i["State"]["Name"] == "running" ? 1 : 0;
      EXPECT_TRUE(i["PrivateDnsName"].get<std::string>().ends_with(".ec2.internal"));
    }
  }
  EXPECT_EQ(running, 3u);

  const Json& change = out["TerminateInstances"]["parsed"]["TerminatingInstances"][0];
  EXPECT_EQ(change["CurrentState"]["Name"], "shutting-down");
  EXPECT_EQ(change["PreviousState"]["Code"], 16);
  EXPECT_EQ(out["DeleteLaunchTemplate"]["parsed"]["LaunchTemplate"]["LaunchTemplateName"],
            "karpenter.k8s.aws/1");
  EXPECT_EQ(out["CreateFleet#unsupported"]["parsed"]["Error"]["Code"], "Unsupported");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
