// CreateLaunchTemplate, DescribeLaunchTemplates, DescribeLaunchTemplateVersions and
// DeleteLaunchTemplate in process: the typed launch template data round-trips as botocore's
// ResponseLaunchTemplateData names it, names are unique, and errors name the parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::kNodeGroup;
using testing::LaunchWorld;
using testing::Xml;

class LaunchTemplateActionsTest : public ::testing::Test {
 protected:
  // Karpenter's shape: EFA interfaces on two cards, a gp3 root volume, IMDSv2, a profile.
  aws::ParamPairs karpenterTemplate(const std::string& name) {
    return {{"LaunchTemplateName", name},
            {"LaunchTemplateData.ImageId", w_.image()},
            {"LaunchTemplateData.InstanceType", "p5.48xlarge"},
            {"LaunchTemplateData.UserData", "IyEvYmluL2Jhc2g="},
            {"LaunchTemplateData.NetworkInterface.1.DeviceIndex", "0"},
            {"LaunchTemplateData.NetworkInterface.1.NetworkCardIndex", "0"},
            {"LaunchTemplateData.NetworkInterface.1.InterfaceType", "efa"},
            {"LaunchTemplateData.NetworkInterface.1.DeleteOnTermination", "true"},
            {"LaunchTemplateData.NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
            {"LaunchTemplateData.NetworkInterface.2.DeviceIndex", "1"},
            {"LaunchTemplateData.NetworkInterface.2.NetworkCardIndex", "1"},
            {"LaunchTemplateData.NetworkInterface.2.InterfaceType", "efa-only"},
            {"LaunchTemplateData.BlockDeviceMapping.1.DeviceName", "/dev/xvda"},
            {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeSize", "20"},
            {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeType", "gp3"},
            {"LaunchTemplateData.BlockDeviceMapping.1.Ebs.Encrypted", "true"},
            {"LaunchTemplateData.MetadataOptions.HttpTokens", "required"},
            {"LaunchTemplateData.MetadataOptions.HttpPutResponseHopLimit", "1"},
            {"LaunchTemplateData.IamInstanceProfile.Name", "KarpenterNodeInstanceProfile"},
            {"LaunchTemplateData.Monitoring.Enabled", "false"},
            {"LaunchTemplateData.TagSpecification.1.ResourceType", "instance"},
            {"LaunchTemplateData.TagSpecification.1.Tag.1.Key", "karpenter.sh/nodepool"},
            {"LaunchTemplateData.TagSpecification.1.Tag.1.Value", "default"},
            {"TagSpecification.1.ResourceType", "launch-template"},
            {"TagSpecification.1.Tag.1.Key", "karpenter.k8s.aws/cluster"},
            {"TagSpecification.1.Tag.1.Value", "nodewright"}};
  }

  std::string create(const std::string& name) {
    Xml created = w_.ok("CreateLaunchTemplate", karpenterTemplate(name));
    return created.root().child("launchTemplate").child_value("launchTemplateId");
  }

  LaunchWorld w_;
};

TEST_F(LaunchTemplateActionsTest, TemplateDataRoundTripsThroughDescribeVersions) {
  Xml created = w_.ok("CreateLaunchTemplate", karpenterTemplate("karpenter.k8s.aws/123"));
  pugi::xml_node lt = created.root().child("launchTemplate");
  EXPECT_TRUE(std::string(lt.child_value("launchTemplateId")).starts_with("lt-"));
  EXPECT_STREQ(lt.child_value("defaultVersionNumber"), "1");
  EXPECT_STREQ(lt.child_value("latestVersionNumber"), "1");
  EXPECT_STREQ(lt.child("tagSet").child("item").child_value("key"), "karpenter.k8s.aws/cluster");

  Xml versions = w_.ok(
      "DescribeLaunchTemplateVersions",
      {{"LaunchTemplateName", "karpenter.k8s.aws/123"}, {"LaunchTemplateVersion.1", "$Latest"}});
  auto items = versions.items("launchTemplateVersionSet");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_STREQ(items[0].child_value("defaultVersion"), "true");
  pugi::xml_node data = items[0].child("launchTemplateData");
  EXPECT_EQ(data.child_value("imageId"), w_.image());
  EXPECT_STREQ(data.child_value("instanceType"), "p5.48xlarge");
  EXPECT_STREQ(data.child_value("userData"), "IyEvYmluL2Jhc2g=");
  pugi::xml_node first = data.child("networkInterfaceSet").first_child();
  EXPECT_STREQ(first.child_value("interfaceType"), "efa");
  EXPECT_STREQ(first.child_value("networkCardIndex"), "0");
  // botocore's GroupIdStringList: <groupId> members, not <item>.
  EXPECT_EQ(first.child("groupSet").child_value("groupId"), std::string(kNodeGroup));
  pugi::xml_node second = first.next_sibling("item");
  EXPECT_STREQ(second.child_value("interfaceType"), "efa-only");
  EXPECT_STREQ(second.child_value("networkCardIndex"), "1");
  pugi::xml_node ebs = data.child("blockDeviceMappingSet").child("item").child("ebs");
  EXPECT_STREQ(ebs.child_value("volumeSize"), "20");
  EXPECT_STREQ(ebs.child_value("volumeType"), "gp3");
  EXPECT_STREQ(ebs.child_value("encrypted"), "true");
  EXPECT_STREQ(data.child("metadataOptions").child_value("httpTokens"), "required");
  EXPECT_STREQ(data.child("iamInstanceProfile").child_value("name"),
               "KarpenterNodeInstanceProfile");
  pugi::xml_node tagSpec = data.child("tagSpecificationSet").child("item");
  EXPECT_STREQ(tagSpec.child_value("resourceType"), "instance");
  EXPECT_STREQ(tagSpec.child("tagSet").child("item").child_value("value"), "default");
}

TEST_F(LaunchTemplateActionsTest, NamesAreUniqueButTheSameClientTokenReplays) {
  aws::ParamPairs request = karpenterTemplate("unique");
  request.emplace_back("ClientToken", "token-1");
  Xml first = w_.ok("CreateLaunchTemplate", request);
  Xml again = w_.ok("CreateLaunchTemplate", request);
  EXPECT_STREQ(first.root().child("launchTemplate").child_value("launchTemplateId"),
               again.root().child("launchTemplate").child_value("launchTemplateId"));
  EXPECT_EQ(w_.engine().stats().creates("token-1"), 1u);

  aws::ApiError taken = w_.fails("CreateLaunchTemplate", karpenterTemplate("unique"));
  EXPECT_EQ(taken.code, "InvalidLaunchTemplateName.AlreadyExistsException");
  EXPECT_EQ(taken.message, "Launch template name already in use.");
  EXPECT_EQ(w_.engine().store().liveCount(kind::kLaunchTemplate), 1u);
}

TEST_F(LaunchTemplateActionsTest, DeleteFreesTheName) {
  const std::string id = create("reusable");
  Xml deleted = w_.ok("DeleteLaunchTemplate", {{"LaunchTemplateName", "reusable"}});
  EXPECT_EQ(deleted.root().child("launchTemplate").child_value("launchTemplateId"), id);

  aws::ApiError gone = w_.fails("DescribeLaunchTemplates", {{"LaunchTemplateName.1", "reusable"}});
  EXPECT_EQ(gone.code, "InvalidLaunchTemplateName.NotFoundException");
  gone = w_.fails("DeleteLaunchTemplate", {{"LaunchTemplateId", id}});
  EXPECT_EQ(gone.code, "InvalidLaunchTemplateId.NotFound");
  EXPECT_EQ(gone.message,
            "The specified launch template, with template ID " + id + ", does not exist.");
  EXPECT_NE(create("reusable"), id);
}

TEST_F(LaunchTemplateActionsTest, DescribeFiltersAndPages) {
  create("team-a-1");
  create("team-a-2");
  create("team-b-1");
  w_.ok("CreateTags",
        {{"ResourceId.1", create("team-b-2")}, {"Tag.1.Key", "Team"}, {"Tag.1.Value", "b"}});

  Xml byName = w_.ok("DescribeLaunchTemplates",
                     {{"Filter.1.Name", "launch-template-name"}, {"Filter.1.Value.1", "team-a-*"}});
  EXPECT_EQ(byName.items("launchTemplates").size(), 2u);
  Xml byTag =
      w_.ok("DescribeLaunchTemplates", {{"Filter.1.Name", "tag:Team"}, {"Filter.1.Value.1", "b"}});
  ASSERT_EQ(byTag.items("launchTemplates").size(), 1u);
  EXPECT_STREQ(byTag.items("launchTemplates")[0].child_value("launchTemplateName"), "team-b-2");

  std::vector<std::string> seen;
  std::string token;
  for (int page = 0; page < 4; ++page) {
    aws::ParamPairs request{{"MaxResults", "3"}};
    if (!token.empty()) {
      request.emplace_back("NextToken", token);
    }
    Xml result = w_.ok("DescribeLaunchTemplates", request);
    for (const std::string& name : result.texts("launchTemplates", "launchTemplateName")) {
      seen.push_back(name);
    }
    token = result.nextToken();
    if (token.empty()) {
      break;
    }
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_TRUE(token.empty());
}

TEST_F(LaunchTemplateActionsTest, BadParametersAreNamed) {
  aws::ParamPairs request = karpenterTemplate("bad");
  request.emplace_back("LaunchTemplateData.NetworkInterface.3.DeviceIndex", "two");
  aws::ApiError e = w_.fails("CreateLaunchTemplate", request);
  EXPECT_EQ(e.code, "InvalidParameterValue");
  EXPECT_EQ(e.message, "Invalid value 'two' for LaunchTemplateData.NetworkInterface.3.DeviceIndex");

  request = karpenterTemplate("bad");
  request.emplace_back("LaunchTemplateData.MetadataOptions.HttpEndpoint", "sometimes");
  request.erase(std::remove_if(request.begin(), request.end(),
                               [](const auto& p) { return p.first.ends_with("HttpTokens"); }),
                request.end());
  e = w_.fails("CreateLaunchTemplate", request);
  EXPECT_EQ(e.message,
            "Invalid value 'sometimes' for LaunchTemplateData.MetadataOptions.HttpEndpoint");

  e = w_.fails("CreateLaunchTemplate",
               {{"LaunchTemplateName", "x!"}, {"LaunchTemplateData.InstanceType", "m5.large"}});
  EXPECT_EQ(e.code, "InvalidLaunchTemplateName.MalformedException");
  e = w_.fails("CreateLaunchTemplate", {{"LaunchTemplateName", "no-data"}});
  EXPECT_EQ(e.code, "MissingParameter");

  request = karpenterTemplate("bad");
  request.emplace_back("TagSpecification.2.ResourceType", "instance");
  e = w_.fails("CreateLaunchTemplate", request);
  EXPECT_EQ(e.message, "'instance' is not a valid taggable resource type for this operation.");
}

// What Karpenter v1.14 sends for an EC2NodeClass's connectionTracking and cpuOptions is stored
// and described under botocore's names (connectionTrackingSpecification, cpuOptions).
TEST_F(LaunchTemplateActionsTest, ConnectionTrackingAndCpuOptionsRoundTrip) {
  aws::ParamPairs request = karpenterTemplate("tracked");
  const std::string ct = "LaunchTemplateData.NetworkInterface.1.ConnectionTrackingSpecification.";
  request.emplace_back(ct + "TcpEstablishedTimeout", "600");
  request.emplace_back(ct + "UdpStreamTimeout", "90");
  request.emplace_back(ct + "UdpTimeout", "45");
  request.emplace_back("LaunchTemplateData.CpuOptions.NestedVirtualization", "enabled");
  request.emplace_back("LaunchTemplateData.CpuOptions.CoreCount", "4");
  request.emplace_back("LaunchTemplateData.CpuOptions.ThreadsPerCore", "1");
  w_.ok("CreateLaunchTemplate", request);

  Xml versions = w_.ok("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "tracked"}});
  auto items = versions.items("launchTemplateVersionSet");
  ASSERT_EQ(items.size(), 1u);
  pugi::xml_node data = items[0].child("launchTemplateData");
  pugi::xml_node first = data.child("networkInterfaceSet").first_child();
  pugi::xml_node tracking = first.child("connectionTrackingSpecification");
  EXPECT_STREQ(tracking.child_value("tcpEstablishedTimeout"), "600");
  EXPECT_STREQ(tracking.child_value("udpStreamTimeout"), "90");
  EXPECT_STREQ(tracking.child_value("udpTimeout"), "45");
  EXPECT_FALSE(first.next_sibling().child("connectionTrackingSpecification"));
  pugi::xml_node cpu = data.child("cpuOptions");
  EXPECT_STREQ(cpu.child_value("nestedVirtualization"), "enabled");
  EXPECT_STREQ(cpu.child_value("coreCount"), "4");
  EXPECT_STREQ(cpu.child_value("threadsPerCore"), "1");
  EXPECT_FALSE(cpu.child("amdSevSnp"));

  // A template without them describes neither.
  w_.ok("CreateLaunchTemplate", karpenterTemplate("plain"));
  Xml plain = w_.ok("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "plain"}});
  pugi::xml_node plainData =
      plain.items("launchTemplateVersionSet").at(0).child("launchTemplateData");
  EXPECT_FALSE(plainData.child("cpuOptions"));
  EXPECT_FALSE(plainData.child("networkInterfaceSet")
                   .first_child()
                   .child("connectionTrackingSpecification"));
}

TEST_F(LaunchTemplateActionsTest, ConnectionTrackingOutsideEc2sRangesIsRejected) {
  const std::string ct = "LaunchTemplateData.NetworkInterface.1.ConnectionTrackingSpecification.";
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, std::string>>{{"TcpEstablishedTimeout", "59"},
                                                        {"TcpEstablishedTimeout", "432001"},
                                                        {"UdpStreamTimeout", "181"},
                                                        {"UdpTimeout", "29"},
                                                        {"UdpTimeout", "61"}}) {
    aws::ParamPairs request = karpenterTemplate("out-of-range");
    request.emplace_back(ct + field, value);
    aws::ApiError e = w_.fails("CreateLaunchTemplate", request);
    EXPECT_EQ(e.code, "InvalidParameterValue") << field << "=" << value;
    EXPECT_EQ(e.message, "Invalid value '" + value + "' for " + ct + field);
  }
  aws::ParamPairs request = karpenterTemplate("bad-cpu");
  request.emplace_back("LaunchTemplateData.CpuOptions.NestedVirtualization", "sometimes");
  EXPECT_EQ(w_.fails("CreateLaunchTemplate", request).code, "InvalidParameterValue");
}

TEST_F(LaunchTemplateActionsTest, VersionsResolveLatestDefaultAndNumbers) {
  const std::string id = create("versions");
  for (const char* version : {"$Latest", "$Default", "1"}) {
    Xml v = w_.ok("DescribeLaunchTemplateVersions",
                  {{"LaunchTemplateId", id}, {"LaunchTemplateVersion.1", version}});
    EXPECT_EQ(v.texts("launchTemplateVersionSet", "versionNumber"), std::vector<std::string>{"1"})
        << version;
  }
  aws::ApiError e = w_.fails("DescribeLaunchTemplateVersions",
                             {{"LaunchTemplateId", id}, {"LaunchTemplateVersion.1", "7"}});
  EXPECT_EQ(e.code, "InvalidLaunchTemplateId.VersionNotFound");
  EXPECT_EQ(e.message,
            "Could not find the specified version 7 for the launch template with ID " + id + ".");
  e = w_.fails("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "absent"}});
  EXPECT_EQ(e.code, "InvalidLaunchTemplateName.NotFoundException");
  EXPECT_EQ(e.message, "The specified launch template, with template name absent, does not exist.");
}

TEST_F(LaunchTemplateActionsTest, DescribeByIdRejectsMalformedAndUnknownIds) {
  EXPECT_EQ(w_.fails("DescribeLaunchTemplates", {{"LaunchTemplateId.1", "template"}}).code,
            "InvalidLaunchTemplateId.Malformed");
  EXPECT_EQ(
      w_.fails("DescribeLaunchTemplates", {{"LaunchTemplateId.1", "lt-0123456789abcdef0"}}).code,
      "InvalidLaunchTemplateId.NotFound");
  const std::string id = create("by-id");
  Xml found = w_.ok("DescribeLaunchTemplates", {{"LaunchTemplateId.1", id}});
  EXPECT_EQ(found.texts("launchTemplates", "launchTemplateName"),
            std::vector<std::string>{"by-id"});
}

}  // namespace
}  // namespace nodewright::emulators::ec2
