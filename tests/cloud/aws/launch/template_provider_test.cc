// Launch templates against the EC2 emulator: what EC2 records is exactly what was meant,
// templates are reused, a lost create race counts as found, and stale ones are cleaned up.
#include "cloud/aws/launch/template_provider.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cloud/aws/instance/ec2_peer.h"
#include "cloud/aws/launch/read_back.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::NetworkInterface;
using testing::readBack;
using testing::showAll;

class LaunchTemplateProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(peer_.ok());
    resolved_ = peer_.resolved();
    ASSERT_EQ(resolved_.subnets.size(), 3u);
    nodeClass_.metadata.name = "default";
    nodeClass_.spec.tags = {{"team", "storage"}};
    settings_.imageId = resolved_.images.at(0).id;
    settings_.labels = {{"karpenter.sh/nodepool", "general"}};
    settings_.maxPods = 58;
  }

  LaunchTemplateProvider provider(const std::string& cluster = testing::kCluster) {
    ClusterInfo info = testing::clusterInfo();
    info.name = cluster;
    return LaunchTemplateProvider(peer_.ec2(), clock_, {info});
  }

  TemplateSpec spec() {
    auto built = buildTemplate(testing::clusterInfo(), nodeClass_, resolved_, settings_);
    EXPECT_TRUE(built) << built.error().message();
    return built ? *built : TemplateSpec{};
  }

  std::vector<std::string> templateNames() {
    auto all = peer_.ec2().describeLaunchTemplates({});
    EXPECT_TRUE(all) << all.error().message;
    std::vector<std::string> names;
    for (const auto& t : all.value_or(std::vector<sdk::LaunchTemplate>{})) {
      names.push_back(t.launchTemplateName);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  core::FakeClock clock_;
  testing::Ec2Peer peer_{clock_, emulators::testing::fastOptions()};
  ResolvedNodeClass resolved_;
  api::karpenter::EC2NodeClass nodeClass_;
  LaunchSettings settings_;
};

TEST_F(LaunchTemplateProviderTest, RecordsExactlyTheIntendedDataWithSeedInterfaces) {
  NetworkInterface primary;
  primary.associateCarrierIPAddress = false;
  primary.associatePublicIPAddress = false;
  primary.deleteOnTermination = true;
  primary.description = "nodes";
  primary.deviceIndex = 0;
  primary.networkCardIndex = 0;
  primary.ipv4PrefixCount = 1;
  NetworkInterface fabric;
  fabric.deleteOnTermination = false;
  fabric.description = "fabric";
  fabric.deviceIndex = 1;
  fabric.interfaceType = "efa";
  fabric.networkCardIndex = 1;
  fabric.ipv6PrefixCount = 2;
  nodeClass_.spec.networkInterfaces = {fabric, primary};  // listed out of order
  nodeClass_.spec.detailedMonitoring = true;

  auto lt = provider();
  auto name = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(name) << name.error().message();
  const TemplateSpec want = spec();
  EXPECT_EQ(*name, want.name);

  const sdk::LaunchTemplateData got = readBack(peer_.wire(), *name);
  const std::string group = resolved_.securityGroups.at(0).groupId;
  EXPECT_EQ(showAll(got.networkInterfaces),
            (std::vector<std::string>{
                "carrier=false public=false delete=true description=nodes device=0 card=0 type= "
                "v4=1 v6=- groups=" +
                    group + " subnet=",
                "carrier=- public=- delete=false description=fabric device=1 card=1 type=efa "
                "v4=- v6=2 groups=" +
                    group + " subnet="}));
  EXPECT_EQ(showAll(got.blockDeviceMappings), showAll(want.data.blockDeviceMappings));
  EXPECT_EQ(showAll(got.blockDeviceMappings),
            (std::vector<std::string>{
                "/dev/xvda delete=- encrypted=true iops=- throughput=- size=20 kms= type=gp3"}));
  EXPECT_TRUE(got.securityGroupIds.empty());  // the interfaces carry them
  EXPECT_EQ(got.imageId, settings_.imageId);
  EXPECT_EQ(got.userData, want.data.userData);
  EXPECT_EQ(got.metadataOptions.httpTokens, "required");
  EXPECT_EQ(got.metadataOptions.httpPutResponseHopLimit, 1);
  EXPECT_EQ(got.metadataOptions.httpEndpoint, "enabled");
  EXPECT_EQ(got.metadataOptions.httpProtocolIpv6, "disabled");
  EXPECT_EQ(got.monitoring, true);
  EXPECT_EQ(got.resourceTags, want.tags);

  auto described = peer_.ec2().describeLaunchTemplates({*name});
  ASSERT_TRUE(described) << described.error().message;
  ASSERT_EQ(described->size(), 1u);
  EXPECT_EQ(described->front().tags, want.tags);
  EXPECT_EQ(described->front().tags.at("karpenter.k8s.aws/cluster"), "nodewright");
  EXPECT_EQ(described->front().tags.at("karpenter.k8s.aws/ec2nodeclass"), "default");
  EXPECT_EQ(described->front().tags.at("kubernetes.io/cluster/nodewright"), "owned");
}

// Issue 23: an EC2NodeClass's connectionTracking and cpuOptions reach CreateLaunchTemplate as
// Karpenter v1.14 sends them (NetworkInterface.N.ConnectionTrackingSpecification.*, on every
// interface but efa-only ones; CpuOptions.NestedVirtualization), and EC2 returns them.
TEST_F(LaunchTemplateProviderTest, ConnectionTrackingAndCpuOptionsReachTheTemplate) {
  NetworkInterface primary;
  NetworkInterface fabric;
  fabric.deviceIndex = 0;
  fabric.networkCardIndex = 1;
  fabric.interfaceType = "efa-only";
  nodeClass_.spec.networkInterfaces = {primary, fabric};
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{600, 90, 45};
  nodeClass_.spec.cpuOptions = api::karpenter::CPUOptions{"enabled"};

  auto lt = provider();
  auto name = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(name) << name.error().message();
  const sdk::LaunchTemplateData got = readBack(peer_.wire(), *name);
  ASSERT_EQ(got.networkInterfaces.size(), 2u);
  EXPECT_EQ(testing::show(got.networkInterfaces[0].connectionTracking),
            "tcp=600 udp-stream=90 udp=45");
  EXPECT_EQ(got.networkInterfaces[1].interfaceType, "efa-only");
  EXPECT_EQ(testing::show(got.networkInterfaces[1].connectionTracking), "none");
  EXPECT_EQ(got.nestedVirtualization, "enabled");

  // Without interfaces of its own the node class's primary interface carries the timeouts;
  // the template is another one.
  nodeClass_.spec.networkInterfaces.clear();
  nodeClass_.spec.connectionTracking = api::karpenter::ConnectionTracking{std::nullopt, 120, 30};
  nodeClass_.spec.cpuOptions.reset();
  auto second = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_NE(*second, *name);
  const sdk::LaunchTemplateData primaryOnly = readBack(peer_.wire(), *second);
  ASSERT_EQ(primaryOnly.networkInterfaces.size(), 1u);
  EXPECT_EQ(primaryOnly.networkInterfaces[0].deviceIndex, 0);
  EXPECT_EQ(primaryOnly.networkInterfaces[0].groups,
            std::vector<std::string>{resolved_.securityGroups.at(0).groupId});
  EXPECT_EQ(testing::show(primaryOnly.networkInterfaces[0].connectionTracking),
            "tcp=- udp-stream=120 udp=30");
  EXPECT_TRUE(primaryOnly.securityGroupIds.empty());
  EXPECT_EQ(primaryOnly.nestedVirtualization, "");
}

TEST_F(LaunchTemplateProviderTest, ReusesTemplatesFromCacheAndFromEc2) {
  auto lt = provider();
  auto first = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(first) << first.error().message();
  auto second = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(peer_.requests("CreateLaunchTemplate"), 1);
  EXPECT_EQ(peer_.requests("DescribeLaunchTemplates"), 1);  // the second came from the cache

  // A restarted controller finds the template in EC2 instead of creating another.
  auto restarted = provider();
  auto third = restarted.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(third) << third.error().message();
  EXPECT_EQ(*third, *first);
  EXPECT_EQ(peer_.requests("CreateLaunchTemplate"), 1);
  EXPECT_EQ(peer_.requests("DescribeLaunchTemplates"), 2);

  // Past the cache's TTL EC2 is asked again.
  clock_.advance(std::chrono::minutes(6));
  ASSERT_TRUE(lt.ensure(nodeClass_, resolved_, settings_));
  EXPECT_EQ(peer_.requests("DescribeLaunchTemplates"), 3);
  EXPECT_EQ(peer_.requests("CreateLaunchTemplate"), 1);
}

TEST_F(LaunchTemplateProviderTest, CreateThatLosesARaceCountsAsFound) {
  const TemplateSpec s = spec();
  // Another controller created it between our describe and our create.
  ASSERT_TRUE(peer_.ec2().createLaunchTemplate(s.name, s.data, s.tags));
  peer_.putFaults(R"({"errors": {"DescribeLaunchTemplates": [
      {"code": "InvalidLaunchTemplateName.NotFoundException", "probability": 1}]}})");
  auto lt = provider();
  auto name = lt.ensure(s);
  ASSERT_TRUE(name) << name.error().message();
  EXPECT_EQ(*name, s.name);
  auto stats = peer_.stats();
  EXPECT_EQ(stats["requests"]["CreateLaunchTemplate"]["errors"]
                 ["InvalidLaunchTemplateName.AlreadyExistsException"],
            1);
}

TEST_F(LaunchTemplateProviderTest, InvalidInterfacesNeverReachEc2) {
  nodeClass_.spec.networkInterfaces = {NetworkInterface{}, NetworkInterface{}};
  nodeClass_.spec.networkInterfaces[1].deviceIndex = 1;
  nodeClass_.spec.networkInterfaces[1].associatePublicIPAddress = true;
  auto lt = provider();
  auto name = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_FALSE(name);
  EXPECT_TRUE(name.error().is(core::Code::Invalid));
  EXPECT_NE(name.error().message().find("spec.networkInterfaces[1].associatePublicIPAddress"),
            std::string::npos)
      << name.error().message();
  EXPECT_EQ(peer_.requests("CreateLaunchTemplate"), 0);
}

TEST_F(LaunchTemplateProviderTest, CleanupDeletesOnlyThisNodeClassesStaleTemplates) {
  auto lt = provider();
  auto before = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(before) << before.error().message();
  nodeClass_.spec.detailedMonitoring = true;  // the node class changed
  auto after = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(after) << after.error().message();
  ASSERT_NE(*before, *after);

  api::karpenter::EC2NodeClass other = nodeClass_;
  other.metadata.name = "other";
  auto otherName = lt.ensure(other, resolved_, settings_);
  ASSERT_TRUE(otherName) << otherName.error().message();
  auto foreign = provider("another-cluster");  // same node class name, another cluster
  auto foreignName = foreign.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(foreignName) << foreignName.error().message();

  auto deleted = lt.cleanup("default", {*after});
  ASSERT_TRUE(deleted) << deleted.error().message();
  EXPECT_EQ(*deleted, std::vector<std::string>{*before});
  std::vector<std::string> left = {*after, *otherName, *foreignName};
  std::sort(left.begin(), left.end());
  EXPECT_EQ(templateNames(), left);

  // The node class is gone: all of its templates go, the others stay.
  auto all = lt.deleteAll("default");
  ASSERT_TRUE(all) << all.error().message();
  EXPECT_EQ(*all, std::vector<std::string>{*after});
  left = {*otherName, *foreignName};
  std::sort(left.begin(), left.end());
  EXPECT_EQ(templateNames(), left);

  // A deleted template is not trusted from the cache: ensure creates it again.
  auto again = lt.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(peer_.requests("CreateLaunchTemplate"), 5);
}

}  // namespace
}  // namespace nodewright::cloud::aws
