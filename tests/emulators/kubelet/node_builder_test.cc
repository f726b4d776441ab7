// The Node an emulated kubelet registers reports the OS of its machine: Amazon Linux by default,
// and for a Windows machine kubernetes.io/os=windows with the Windows Server image and build a
// real Windows kubelet reports.
#include "emulators/kubelet/node_builder.h"

#include <gtest/gtest.h>

#include "core/time.h"

namespace nodewright::emulators::kubelet {
namespace {

cloud::Machine machine(api::Labels labels) {
  cloud::Machine m;
  m.providerID = "aws:///us-east-1a/i-0abc";
  m.labels = std::move(labels);
  m.capacity = {{"cpu", core::Quantity::fromInt(2)}};
  return m;
}

TEST(NodeFor, ALinuxMachineReportsAmazonLinux) {
  auto node = nodeFor(machine({}), nullptr, "v1.31.0", core::TimePoint{});
  ASSERT_TRUE(node);
  EXPECT_EQ(node->metadata.labels.at("kubernetes.io/os"), "linux");
  EXPECT_EQ(node->status.nodeInfo.operatingSystem, "linux");
  EXPECT_EQ(node->status.nodeInfo.osImage, "Amazon Linux 2023");
  EXPECT_TRUE(node->status.nodeInfo.kernelVersion.ends_with(".amzn2023.x86_64"))
      << node->status.nodeInfo.kernelVersion;
}

TEST(NodeFor, AWindowsMachineReportsItsWindowsServerRelease) {
  struct Case {
    const char* build;
    const char* osImage;
  };
  for (const Case& c : {Case{"10.0.17763", "Windows Server 2019 Datacenter"},
                        Case{"10.0.20348", "Windows Server 2022 Datacenter"},
                        Case{"10.0.26100", "Windows Server 2025 Datacenter"}}) {
    SCOPED_TRACE(c.build);
    auto node = nodeFor(
        machine({{"kubernetes.io/os", "windows"}, {"node.kubernetes.io/windows-build", c.build}}),
        nullptr, "v1.31.0", core::TimePoint{});
    ASSERT_TRUE(node);
    EXPECT_EQ(node->metadata.labels.at("kubernetes.io/os"), "windows");
    EXPECT_EQ(node->metadata.labels.at("node.kubernetes.io/windows-build"), c.build);
    EXPECT_EQ(node->status.nodeInfo.operatingSystem, "windows");
    EXPECT_EQ(node->status.nodeInfo.osImage, c.osImage);
    EXPECT_TRUE(node->status.nodeInfo.kernelVersion.starts_with(std::string(c.build) + "."))
        << node->status.nodeInfo.kernelVersion;
  }
}

// The build may come from the NodeClaim alone (the labels Karpenter's lifecycle copies from
// the instance type), the OS from the machine (EC2's platform).
TEST(NodeFor, TheClaimsLabelsCompleteAWindowsMachine) {
  api::karpenter::NodeClaim claim;
  claim.metadata.labels = {{"node.kubernetes.io/windows-build", "10.0.20348"}};
  auto node =
      nodeFor(machine({{"kubernetes.io/os", "windows"}}), &claim, "v1.31.0", core::TimePoint{});
  ASSERT_TRUE(node);
  EXPECT_EQ(node->status.nodeInfo.operatingSystem, "windows");
  EXPECT_EQ(node->status.nodeInfo.osImage, "Windows Server 2022 Datacenter");
  EXPECT_EQ(node->metadata.labels.at("node.kubernetes.io/windows-build"), "10.0.20348");
}

}  // namespace
}  // namespace nodewright::emulators::kubelet
