#include "emulators/ec2/world.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/clock.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

size_t tagged(ResourceStore& store, std::string_view kind) {
  auto all = store.list(kind);
  return static_cast<size_t>(std::count_if(all.begin(), all.end(), [](const Resource& r) {
    const std::string* v = r.tag("karpenter.sh/discovery");
    return v && *v == "nodewright";
  }));
}

TEST(WorldTest, TheDefaultWorldIsWhatTheExamplesDiscover) {
  core::FakeClock clock;
  ResourceStore store(clock, 1);
  auto world = seedWorld(store, defaultWorld());
  ASSERT_TRUE(world) << world.error().message();
  EXPECT_EQ(tagged(store, kind::kSubnet), 3u);
  EXPECT_EQ(tagged(store, kind::kSecurityGroup), 1u);
  EXPECT_EQ(store.liveCount(kind::kVpc), 2u);

  // One subnet per zone, each with a /19's usable addresses.
  std::vector<std::string> zones;
  for (const Resource& subnet : store.list(kind::kSubnet, [](const Resource& r) {
         return r.tag("karpenter.sh/discovery") != nullptr;
       })) {
    zones.push_back(subnet.as<SubnetAttributes>()->zone);
    EXPECT_EQ(subnet.as<SubnetAttributes>()->availableIps, 8192 - 5);
  }
  std::sort(zones.begin(), zones.end());
  EXPECT_EQ(zones, (std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"}));

  // Every alias parameter Karpenter resolves names a stored image of the right architecture.
  for (const std::string& version : defaultWorld().kubernetesVersions) {
    for (const auto& [path, arch] : std::vector<std::pair<std::string, Architecture>>{
             {"/aws/service/eks/optimized-ami/" + version +
                  "/amazon-linux-2023/x86_64/standard/recommended/image_id",
              Architecture::X86_64},
             {"/aws/service/eks/optimized-ami/" + version +
                  "/amazon-linux-2023/arm64/standard/recommended/image_id",
              Architecture::Arm64},
             {"/aws/service/bottlerocket/aws-k8s-" + version + "/arm64/latest/image_id",
              Architecture::Arm64},
             {"/aws/service/bottlerocket/aws-k8s-" + version + "-nvidia/x86_64/latest/image_id",
              Architecture::X86_64}}) {
      auto it = world->ssmParameters.find(path);
      ASSERT_NE(it, world->ssmParameters.end()) << path;
      auto image = store.get(kind::kImage, it->second);
      ASSERT_TRUE(image) << path;
      EXPECT_EQ(image->as<ImageAttributes>()->architecture, arch) << path;
    }
    // Windows Server 2019 and 2022 Core for every version, x86_64 and platform Windows.
    for (const char* year : {"2019", "2022"}) {
      const std::string path = "/aws/service/ami-windows-latest/Windows_Server-" +
                               std::string(year) + "-English-Core-EKS_Optimized-" + version +
                               "/image_id";
      auto it = world->ssmParameters.find(path);
      ASSERT_NE(it, world->ssmParameters.end()) << path;
      auto image = store.get(kind::kImage, it->second);
      ASSERT_TRUE(image) << path;
      EXPECT_EQ(image->as<ImageAttributes>()->architecture, Architecture::X86_64) << path;
      EXPECT_EQ(image->as<ImageAttributes>()->platformDetails, "Windows") << path;
    }
  }
  // EKS stopped publishing AL2 images after 1.32.
  EXPECT_TRUE(world->ssmParameters.contains(
      "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id"));
  EXPECT_FALSE(world->ssmParameters.contains(
      "/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id"));
}

TEST(WorldTest, SeedingTwiceGivesTheSameImageIds) {
  core::FakeClock clock;
  ResourceStore a(clock, 1), b(clock, 2);
  auto first = seedWorld(a, defaultWorld());
  auto second = seedWorld(b, defaultWorld());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->ssmParameters, second->ssmParameters);
}

TEST(WorldTest, AConfigurationReplacesOnlyTheFieldsItNames) {
  auto world = parseWorldConfig(R"(
region: eu-west-1
zones:
  - {name: eu-west-1a, zoneId: euw1-az1}
vpcs:
  - cidrBlock: 10.9.0.0/16
    subnets:
      - {zone: eu-west-1a, cidrBlock: 10.9.0.0/28, tags: {karpenter.sh/discovery: demo}}
    securityGroups:
      - {name: nodes, tags: {karpenter.sh/discovery: demo}}
)");
  ASSERT_TRUE(world) << world.error().message();
  EXPECT_EQ(world->region, "eu-west-1");
  EXPECT_EQ(world->kubernetesVersions, defaultWorld().kubernetesVersions);

  core::FakeClock clock;
  ResourceStore store(clock, 1);
  auto seeded = seedWorld(store, *world);
  ASSERT_TRUE(seeded) << seeded.error().message();
  auto subnets = store.list(kind::kSubnet);
  ASSERT_EQ(subnets.size(), 1u);
  EXPECT_EQ(subnets[0].as<SubnetAttributes>()->availableIps, 16 - 5);
  EXPECT_EQ(*subnets[0].tag("karpenter.sh/discovery"), "demo");
  EXPECT_TRUE(subnets[0].id.starts_with("subnet-")) << subnets[0].id;
  EXPECT_EQ(subnets[0].as<SubnetAttributes>()->vpcId, store.list(kind::kVpc).at(0).id);
}

TEST(WorldTest, BadConfigurationsNameEveryFieldAtFault) {
  auto world = parseWorldConfig(R"(
vpcs:
  - subnets:
      - {cidrBlock: 10.0.0.0/24, availableIps: -1}
    securityGroups:
      - {description: no name}
images:
  - {name: x, architecture: sparc}
  - {name: y, platform: macos}
colour: blue
)");
  ASSERT_FALSE(world);
  const std::string message = world.error().message();
  for (const char* path : {"vpcs[0].subnets[0].zone", "vpcs[0].subnets[0].availableIps",
                           "vpcs[0].securityGroups[0].name", "images[0].architecture",
                           "images[1].platform", "colour"}) {
    EXPECT_NE(message.find(path), std::string::npos) << path << " not in: " << message;
  }
}

TEST(WorldTest, AConfiguredWindowsImageIsDescribedAsWindows) {
  auto world = parseWorldConfig(R"(
images:
  - {name: my-windows, platform: windows, ssmParameters: [/my/windows]}
)");
  ASSERT_TRUE(world) << world.error().message();
  core::FakeClock clock;
  ResourceStore store(clock, 1);
  auto seeded = seedWorld(store, *world);
  ASSERT_TRUE(seeded) << seeded.error().message();
  auto image = store.get(kind::kImage, seeded->ssmParameters.at("/my/windows"));
  ASSERT_TRUE(image);
  EXPECT_EQ(image->as<ImageAttributes>()->platformDetails, "Windows");
  EXPECT_EQ(image->as<ImageAttributes>()->rootDeviceName, "/dev/sda1");
}

TEST(WorldTest, ASubnetInAZoneTheWorldLacksIsRefused) {
  WorldConfig config = defaultWorld();
  config.vpcs[0].subnets[0].zone = "us-west-2a";
  core::FakeClock clock;
  ResourceStore store(clock, 1);
  auto world = seedWorld(store, config);
  ASSERT_FALSE(world);
  EXPECT_NE(world.error().message().find("us-west-2a"), std::string::npos);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
