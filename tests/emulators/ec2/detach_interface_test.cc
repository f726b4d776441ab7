// DetachNetworkInterface: a secondary interface taken off a running instance out of band leaves
// the instance's DescribeInstances answer; the primary cannot be detached, and an unknown
// attachment is EC2's NotFound.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::kNodeGroup;
using testing::kSubnetA;
using testing::LaunchWorld;
using testing::Xml;

class DetachInterfaceTest : public ::testing::Test {
 protected:
  // An m5.large with interfaces at device 0 and 1 on card 0; its id.
  std::string launchTwoInterfaces() {
    Xml run = w_.ok("RunInstances",
                    {{"ImageId", w_.image()},
                     {"InstanceType", "m5.large"},
                     {"MinCount", "1"},
                     {"MaxCount", "1"},
                     {"NetworkInterface.1.DeviceIndex", "0"},
                     {"NetworkInterface.1.SubnetId", std::string(kSubnetA)},
                     {"NetworkInterface.1.SecurityGroupId.1", std::string(kNodeGroup)},
                     {"NetworkInterface.2.DeviceIndex", "1"},
                     {"NetworkInterface.2.SubnetId", std::string(kSubnetA)},
                     {"NetworkInterface.2.SecurityGroupId.1", std::string(kNodeGroup)}});
    return run.items("instancesSet").at(0).child_value("instanceId");
  }

  // device index -> attachment id, as DescribeInstances shows the instance now.
  std::map<std::string, std::string> attachments(const std::string& id) {
    Xml described = w_.ok("DescribeInstances", {{"InstanceId.1", id}});
    std::map<std::string, std::string> out;
    for (pugi::xml_node eni :
         LaunchWorld::firstInstance(described).child("networkInterfaceSet").children("item")) {
      out[eni.child("attachment").child_value("deviceIndex")] =
          eni.child("attachment").child_value("attachmentId");
    }
    return out;
  }

  LaunchWorld w_;
};

TEST_F(DetachInterfaceTest, ASecondaryInterfaceLeavesTheInstance) {
  const std::string id = launchTwoInterfaces();
  auto before = attachments(id);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_TRUE(before["1"].starts_with("eni-attach-")) << before["1"];
  Xml detached = w_.ok("DetachNetworkInterface", {{"AttachmentId", before["1"]}});
  EXPECT_STREQ(detached.root().child_value("return"), "true");
  auto after = attachments(id);
  EXPECT_EQ(after, (std::map<std::string, std::string>{{"0", before["0"]}}));
  // Detached once: the attachment is gone.
  EXPECT_EQ(w_.fails("DetachNetworkInterface", {{"AttachmentId", before["1"]}}).code,
            "InvalidAttachmentID.NotFound");
}

TEST_F(DetachInterfaceTest, ThePrimaryInterfaceCannotBeDetached) {
  const std::string id = launchTwoInterfaces();
  auto before = attachments(id);
  const aws::ApiError error =
      w_.fails("DetachNetworkInterface", {{"AttachmentId", before["0"]}, {"Force", "true"}});
  EXPECT_EQ(error.code, "OperationNotPermitted");
  EXPECT_EQ(attachments(id).size(), 2u);
}

TEST_F(DetachInterfaceTest, UnknownAttachmentsAndMissingParametersAreRefused) {
  EXPECT_EQ(w_.fails("DetachNetworkInterface", {{"AttachmentId", "eni-attach-0123456789abcdef0"}})
                .code,
            "InvalidAttachmentID.NotFound");
  EXPECT_EQ(w_.fails("DetachNetworkInterface", {}).code, "MissingParameter");
}

TEST_F(DetachInterfaceTest, DryRunDetachesNothing) {
  const std::string id = launchTwoInterfaces();
  auto before = attachments(id);
  EXPECT_EQ(
      w_.fails("DetachNetworkInterface", {{"AttachmentId", before["1"]}, {"DryRun", "true"}}).code,
      "DryRunOperation");
  EXPECT_EQ(attachments(id).size(), 2u);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
