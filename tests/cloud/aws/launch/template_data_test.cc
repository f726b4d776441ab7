// What a launch template is made of, before any EC2 call: defaults, block devices per family,
// ownership tags and the content-hash name.
#include "cloud/aws/launch/template_data.h"

#include <gtest/gtest.h>

#include "api/core/validation.h"
#include "cloud/aws/nodeclass/windows.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::EC2NodeClass;

class LaunchTemplateDataTest : public ::testing::Test {
 protected:
  LaunchTemplateDataTest() {
    nodeClass_.metadata.name = "default";
    nodeClass_.spec.tags = {{"team", "storage"}, {kTagCluster, "spoofed"}};
    nodeClass_.status.instanceProfile = "nodewright-profile";
    resolved_.family = kFamilyAL2023;
    sdk::SecurityGroup g;
    g.groupId = "sg-1";
    resolved_.securityGroups = {g};
    settings_.imageId = "ami-0123";
    settings_.labels = {{"karpenter.sh/nodepool", "general"}};
    settings_.maxPods = 29;
  }

  TemplateSpec build() {
    auto spec = buildTemplate(cluster_, nodeClass_, resolved_, settings_);
    EXPECT_TRUE(spec) << spec.error().message();
    return spec ? *spec : TemplateSpec{};
  }

  ClusterInfo cluster_{"nodewright", "https://127.0.0.1:6443", "Y2E=", "10.100.0.0/16"};
  EC2NodeClass nodeClass_;
  ResolvedNodeClass resolved_;
  LaunchSettings settings_;
};

TEST_F(LaunchTemplateDataTest, DefaultsAreImdsV2HopOneEncryptedGp3Root) {
  const TemplateSpec t = build();
  EXPECT_EQ(t.data.imageId, "ami-0123");
  EXPECT_EQ(t.data.metadataOptions.httpTokens, "required");
  EXPECT_EQ(t.data.metadataOptions.httpPutResponseHopLimit, 1);
  EXPECT_EQ(t.data.metadataOptions.httpEndpoint, "enabled");
  EXPECT_EQ(t.data.metadataOptions.httpProtocolIpv6, "disabled");
  EXPECT_EQ(t.data.monitoring, false);
  EXPECT_EQ(t.data.instanceProfileName, "nodewright-profile");
  EXPECT_EQ(t.data.securityGroupIds, (std::vector<std::string>{"sg-1"}));
  EXPECT_TRUE(t.data.networkInterfaces.empty());
  ASSERT_EQ(t.data.blockDeviceMappings.size(), 1u);
  const auto& root = t.data.blockDeviceMappings[0];
  EXPECT_EQ(root.deviceName, "/dev/xvda");
  ASSERT_TRUE(root.ebs);
  EXPECT_EQ(root.ebs->volumeSizeGiB, 20);
  EXPECT_EQ(root.ebs->volumeType, "gp3");
  EXPECT_EQ(root.ebs->encrypted, true);
}

TEST_F(LaunchTemplateDataTest, UserSettingsWin) {
  nodeClass_.spec.metadataOptions =
      api::karpenter::MetadataOptions{"disabled", "enabled", 2, "optional"};
  nodeClass_.spec.detailedMonitoring = true;
  const TemplateSpec t = build();
  EXPECT_EQ(t.data.metadataOptions.httpEndpoint, "disabled");
  EXPECT_EQ(t.data.metadataOptions.httpProtocolIpv6, "enabled");
  EXPECT_EQ(t.data.metadataOptions.httpPutResponseHopLimit, 2);
  EXPECT_EQ(t.data.metadataOptions.httpTokens, "optional");
  EXPECT_EQ(t.data.monitoring, true);
}

TEST_F(LaunchTemplateDataTest, BottlerocketHasRootAndDataVolumesCustomHasNone) {
  auto bottlerocket = blockDevices(nodeClass_.spec, kFamilyBottlerocket);
  ASSERT_TRUE(bottlerocket);
  ASSERT_EQ(bottlerocket->size(), 2u);
  EXPECT_EQ((*bottlerocket)[0].deviceName, "/dev/xvda");
  EXPECT_EQ((*bottlerocket)[0].ebs->volumeSizeGiB, 4);
  EXPECT_EQ((*bottlerocket)[1].deviceName, "/dev/xvdb");
  EXPECT_EQ((*bottlerocket)[1].ebs->volumeSizeGiB, 20);
  for (const auto& d : *bottlerocket) {
    EXPECT_EQ(d.ebs->encrypted, true);
    EXPECT_EQ(d.ebs->volumeType, "gp3");
  }
  auto al2 = blockDevices(nodeClass_.spec, kFamilyAL2);
  ASSERT_TRUE(al2);
  ASSERT_EQ(al2->size(), 1u);
  EXPECT_EQ((*al2)[0].ebs->volumeSizeGiB, 20);
  auto custom = blockDevices(nodeClass_.spec, kFamilyCustom);
  ASSERT_TRUE(custom);
  EXPECT_TRUE(custom->empty());
}

// Each family's default volumes as Karpenter v1.14's amifamily DefaultBlockDeviceMappings give
// them: AL2 and AL2023 a 20Gi /dev/xvda, every Windows family a 50Gi /dev/sda1 (its AMIs' root
// device), all encrypted gp3.
TEST_F(LaunchTemplateDataTest, EachFamilysDefaultRootVolumeIsKarpenters) {
  struct Case {
    const char* family;
    const char* device;
    int64_t sizeGiB;
  };
  for (const Case& c :
       {Case{kFamilyAL2, "/dev/xvda", 20}, Case{kFamilyAL2023, "/dev/xvda", 20},
        Case{kFamilyWindows2019, "/dev/sda1", 50}, Case{kFamilyWindows2022, "/dev/sda1", 50},
        Case{kFamilyWindows2025, "/dev/sda1", 50}}) {
    SCOPED_TRACE(c.family);
    auto devices = blockDevices(nodeClass_.spec, c.family);
    ASSERT_TRUE(devices);
    ASSERT_EQ(devices->size(), 1u);
    EXPECT_EQ((*devices)[0].deviceName, c.device);
    ASSERT_TRUE((*devices)[0].ebs.has_value());
    EXPECT_EQ((*devices)[0].ebs->volumeSizeGiB, c.sizeGiB);
    EXPECT_EQ((*devices)[0].ebs->encrypted, true);
    EXPECT_EQ((*devices)[0].ebs->volumeType, "gp3");
  }
}

TEST_F(LaunchTemplateDataTest, UserVolumesEncryptedUnlessTheySayNotAndRoundUpToGiB) {
  api::karpenter::BlockDevice encrypted;
  encrypted.volumeSize = *core::Quantity::parse("100Gi");
  encrypted.volumeType = "io2";
  encrypted.iops = 3000;
  api::karpenter::BlockDevice plain;
  plain.volumeSize = *core::Quantity::parse("50G");  // 46.6 GiB
  plain.encrypted = false;
  plain.deleteOnTermination = true;
  nodeClass_.spec.blockDeviceMappings = {{"/dev/xvda", encrypted, true},
                                         {"/dev/xvdf", plain, false}};
  auto devices = blockDevices(nodeClass_.spec, kFamilyAL2023);
  ASSERT_TRUE(devices) << devices.error().message();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].ebs->encrypted, true);
  EXPECT_EQ((*devices)[0].ebs->volumeSizeGiB, 100);
  EXPECT_EQ((*devices)[0].ebs->volumeType, "io2");
  EXPECT_EQ((*devices)[0].ebs->iops, 3000);
  EXPECT_EQ((*devices)[1].ebs->encrypted, false);
  EXPECT_EQ((*devices)[1].ebs->volumeSizeGiB, 47);
  EXPECT_EQ((*devices)[1].ebs->deleteOnTermination, true);
}

TEST_F(LaunchTemplateDataTest, VolumeUnderOneGiBNamesItsPath) {
  api::karpenter::BlockDevice tiny;
  tiny.volumeSize = *core::Quantity::parse("10Mi");
  nodeClass_.spec.blockDeviceMappings = {{"/dev/xvda", tiny, true}};
  auto devices = blockDevices(nodeClass_.spec, kFamilyAL2023);
  ASSERT_FALSE(devices);
  EXPECT_EQ(devices.error().message(),
            "spec.blockDeviceMappings[0].ebs.volumeSize: 10Mi is under 1Gi");
}

TEST_F(LaunchTemplateDataTest, OwnershipTagsWinOverTheUsersOnTemplateAndResources) {
  const TemplateSpec t = build();
  const sdk::Tags want = {{"team", "storage"},
                          {kTagCluster, "nodewright"},
                          {kTagNodeClass, "default"},
                          {"kubernetes.io/cluster/nodewright", "owned"},
                          {kTagManagedBy, "nodewright"}};
  EXPECT_EQ(t.tags, want);
  EXPECT_EQ(t.data.resourceTags, want);
}

TEST_F(LaunchTemplateDataTest, UserDataIsBase64OfTheFamilysFormat) {
  const TemplateSpec t = build();
  const auto decoded = api::corev1::decodeBase64(t.data.userData);
  ASSERT_FALSE(decoded.errorOffset);
  EXPECT_NE(decoded.bytes.find("kind: NodeConfig"), std::string::npos) << decoded.bytes;
  EXPECT_NE(decoded.bytes.find("https://127.0.0.1:6443"), std::string::npos);
}

TEST_F(LaunchTemplateDataTest, NameIsAStableHashOfTheContent) {
  const TemplateSpec first = build();
  EXPECT_TRUE(first.name.starts_with("karpenter.k8s.aws/")) << first.name;
  EXPECT_EQ(build().name, first.name);

  settings_.imageId = "ami-0456";
  EXPECT_NE(build().name, first.name);
  settings_.imageId = "ami-0123";
  nodeClass_.spec.detailedMonitoring = true;
  EXPECT_NE(build().name, first.name);
  nodeClass_.spec.detailedMonitoring.reset();
  nodeClass_.metadata.name = "other";
  EXPECT_NE(build().name, first.name);  // another owner, another template
  nodeClass_.metadata.name = "default";
  EXPECT_EQ(build().name, first.name);
}

TEST_F(LaunchTemplateDataTest, InterfacesCarryTheGroupsInsteadOfTheTemplate) {
  nodeClass_.spec.networkInterfaces = {api::karpenter::NetworkInterface{}};
  const TemplateSpec t = build();
  EXPECT_TRUE(t.data.securityGroupIds.empty());
  ASSERT_EQ(t.data.networkInterfaces.size(), 1u);
  EXPECT_EQ(t.data.networkInterfaces[0].groups, (std::vector<std::string>{"sg-1"}));
}

TEST_F(LaunchTemplateDataTest, ConnectionTrackingGoesOnEveryInterfaceButEfaOnly) {
  api::karpenter::NetworkInterface primary;
  api::karpenter::NetworkInterface efa;
  efa.deviceIndex = 1;
  efa.interfaceType = "efa";
  api::karpenter::NetworkInterface efaOnly;
  efaOnly.networkCardIndex = 1;
  efaOnly.interfaceType = "efa-only";
  nodeClass_.spec.networkInterfaces = {primary, efa, efaOnly};
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{432000, 180, 60};
  const TemplateSpec t = build();
  ASSERT_EQ(t.data.networkInterfaces.size(), 3u);
  for (const sdk::LaunchTemplateNetworkInterface& ni : t.data.networkInterfaces) {
    if (ni.interfaceType == "efa-only") {
      EXPECT_FALSE(ni.connectionTracking);
      continue;
    }
    ASSERT_TRUE(ni.connectionTracking) << ni.interfaceType;
    EXPECT_EQ(ni.connectionTracking->tcpEstablishedTimeout, 432000);
    EXPECT_EQ(ni.connectionTracking->udpStreamTimeout, 180);
    EXPECT_EQ(ni.connectionTracking->udpTimeout, 60);
  }
}

TEST_F(LaunchTemplateDataTest, ConnectionTrackingAloneMakesThePrimaryInterface) {
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{};
  EXPECT_TRUE(build().data.networkInterfaces.empty());  // no timeout set: nothing to carry

  nodeClass_.spec.connectionTracking->udpTimeout = 45;
  const TemplateSpec t = build();
  EXPECT_TRUE(t.data.securityGroupIds.empty());
  ASSERT_EQ(t.data.networkInterfaces.size(), 1u);
  const sdk::LaunchTemplateNetworkInterface& ni = t.data.networkInterfaces[0];
  EXPECT_EQ(ni.deviceIndex, 0);
  EXPECT_EQ(ni.groups, (std::vector<std::string>{"sg-1"}));
  ASSERT_TRUE(ni.connectionTracking);
  EXPECT_EQ(ni.connectionTracking->udpTimeout, 45);
  EXPECT_FALSE(ni.connectionTracking->tcpEstablishedTimeout);
}

TEST_F(LaunchTemplateDataTest, EfaInterfacesCarryConnectionTracking) {
  settings_.interfaces.efaCount = 2;
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{600, {}, {}};
  const TemplateSpec t = build();
  ASSERT_EQ(t.data.networkInterfaces.size(), 2u);
  for (const sdk::LaunchTemplateNetworkInterface& ni : t.data.networkInterfaces) {
    EXPECT_EQ(ni.interfaceType, "efa");
    ASSERT_TRUE(ni.connectionTracking);
    EXPECT_EQ(ni.connectionTracking->tcpEstablishedTimeout, 600);
  }
}

TEST_F(LaunchTemplateDataTest, CpuOptionsSendNestedVirtualizationOnlyWhenSet) {
  EXPECT_EQ(build().data.nestedVirtualization, "");
  nodeClass_.spec.cpuOptions = api::karpenter::CPUOptions{};
  EXPECT_EQ(build().data.nestedVirtualization, "");
  nodeClass_.spec.cpuOptions->nestedVirtualization = "disabled";
  EXPECT_EQ(build().data.nestedVirtualization, "disabled");
}

// Karpenter names a template by a hash of all of its launch options, these two included.
TEST_F(LaunchTemplateDataTest, NameFollowsConnectionTrackingAndCpuOptions) {
  const std::string plain = build().name;
  nodeClass_.spec.cpuOptions = api::karpenter::CPUOptions{"enabled"};
  const std::string nested = build().name;
  EXPECT_NE(nested, plain);
  nodeClass_.spec.cpuOptions->nestedVirtualization = "disabled";
  EXPECT_NE(build().name, nested);
  EXPECT_NE(build().name, plain);
  nodeClass_.spec.cpuOptions.reset();
  EXPECT_EQ(build().name, plain);  // unset leaves the names templates had before

  nodeClass_.spec.networkInterfaces = {api::karpenter::NetworkInterface{}};
  const std::string listed = build().name;
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{600, {}, {}};
  const std::string tracked = build().name;
  EXPECT_NE(tracked, listed);
  nodeClass_.spec.connectionTracking->tcpEstablishedTimeout = 601;
  EXPECT_NE(build().name, tracked);
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{{}, 600, {}};
  EXPECT_NE(build().name, tracked);  // the same number in another field
}

}  // namespace
}  // namespace nodewright::cloud::aws
