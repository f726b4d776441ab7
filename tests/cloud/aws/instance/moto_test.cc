// The launch template and instance providers against moto's server, the second real peer:
// what moto records for a template is what was meant, templates are reused and cleaned up, and
// a fleet launch can be described, listed, terminated and garbage-collected.
#include <gtest/gtest.h>

#include <algorithm>

#include "cloud/aws/instance/ec2_peer.h"
#include "cloud/aws/instance/instance_provider.h"
#include "cloud/aws/launch/template_provider.h"
#include "cloud/aws/launch/read_back.h"

namespace nodewright::cloud::aws {
namespace {

using namespace std::chrono_literals;
using testing::showAll;

class MotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(peer_.ok());
    resolved_ = peer_.resolved();
    ASSERT_EQ(resolved_.subnets.size(), 3u);
    ASSERT_EQ(resolved_.securityGroups.size(), 1u);
    ASSERT_FALSE(resolved_.images.at(0).id.empty());
    nodeClass_.metadata.name = "default";
    settings_.imageId = resolved_.images.at(0).id;
    settings_.labels = {{"karpenter.sh/nodepool", "general"}};
    templates_ = std::make_unique<LaunchTemplateProvider>(
        peer_.ec2(), clock_, LaunchTemplateProviderOptions{testing::clusterInfo()});
    InstanceProviderOptions o;
    o.clusterName = testing::kCluster;
    o.describeBatch = {0ms, 0ms, 500};
    o.terminateBatch = o.describeBatch;
    instances_ =
        std::make_unique<InstanceProvider>(peer_.ec2(), *templates_, unavailable_, clock_, o);
  }

  static api::karpenter::NodeClaim claim(const std::string& name) {
    api::karpenter::NodeClaim c;
    c.metadata.name = name;
    c.metadata.uid = "uid-" + name;
    c.metadata.labels = {{"karpenter.sh/nodepool", "general"}};
    c.spec.requirements.push_back({"karpenter.sh/capacity-type", "In", {"on-demand"}, {}});
    return c;
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

  // moto stamps launch times from the wall clock; the fake one starts there.
  core::FakeClock clock_{core::systemClock().now()};
  testing::Ec2Peer peer_{clock_, testing::Ec2Peer::Moto{}};
  UnavailableOfferings unavailable_{clock_};
  ResolvedNodeClass resolved_;
  api::karpenter::EC2NodeClass nodeClass_;
  LaunchSettings settings_;
  std::vector<InstanceType> types_ = {testing::instanceType("m5.large", 0.096, 29)};
  std::unique_ptr<LaunchTemplateProvider> templates_;
  std::unique_ptr<InstanceProvider> instances_;
};

TEST_F(MotoTest, RecordsExactlyTheIntendedTemplate) {
  api::karpenter::NetworkInterface primary;
  primary.associatePublicIPAddress = false;
  primary.deleteOnTermination = true;
  primary.description = "nodes";
  primary.deviceIndex = 0;
  primary.ipv4PrefixCount = 1;
  api::karpenter::NetworkInterface fabric;
  fabric.associateCarrierIPAddress = false;
  fabric.description = "fabric";
  fabric.deviceIndex = 1;
  fabric.interfaceType = "efa";
  fabric.networkCardIndex = 1;
  fabric.ipv6PrefixCount = 2;
  nodeClass_.spec.networkInterfaces = {fabric, primary};
  auto want = buildTemplate(testing::clusterInfo(), nodeClass_, resolved_, settings_);
  ASSERT_TRUE(want) << want.error().message();

  auto name = templates_->ensure(*want);
  ASSERT_TRUE(name) << name.error().message();
  const sdk::LaunchTemplateData got = testing::readBack(peer_.wire(), *name);
  EXPECT_EQ(showAll(got.networkInterfaces), showAll(want->data.networkInterfaces));
  EXPECT_EQ(showAll(got.blockDeviceMappings), showAll(want->data.blockDeviceMappings));
  EXPECT_EQ(got.imageId, want->data.imageId);
  EXPECT_EQ(got.userData, want->data.userData);
  EXPECT_EQ(got.metadataOptions.httpTokens, "required");
  EXPECT_EQ(got.metadataOptions.httpPutResponseHopLimit, 1);
  EXPECT_EQ(got.resourceTags, want->tags);
}

TEST_F(MotoTest, ReusesTemplatesAndCleansUpStaleOnes) {
  auto before = templates_->ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(before) << before.error().message();
  LaunchTemplateProvider restarted(peer_.ec2(), clock_, {testing::clusterInfo()});
  auto again = restarted.ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(*again, *before);
  EXPECT_EQ(peer_.sentRequests("CreateLaunchTemplate").size(), 1u);

  nodeClass_.spec.detailedMonitoring = true;
  auto after = templates_->ensure(nodeClass_, resolved_, settings_);
  ASSERT_TRUE(after) << after.error().message();
  auto deleted = templates_->cleanup("default", {*after});
  ASSERT_TRUE(deleted) << deleted.error().message();
  EXPECT_EQ(*deleted, std::vector<std::string>{*before});
  EXPECT_EQ(templateNames(), std::vector<std::string>{*after});
  auto all = templates_->deleteAll("default");
  ASSERT_TRUE(all) << all.error().message();
  EXPECT_TRUE(templateNames().empty());
}

TEST_F(MotoTest, LaunchesDescribesListsTerminatesAndCollects) {
  auto kept = instances_->create({claim("kept"), nodeClass_, resolved_, testing::pointers(types_)});
  ASSERT_TRUE(kept) << kept.error().message();
  auto orphan =
      instances_->create({claim("orphan"), nodeClass_, resolved_, testing::pointers(types_)});
  ASSERT_TRUE(orphan) << orphan.error().message();
  EXPECT_EQ(kept->instanceType, "m5.large");

  auto described = instances_->get(kept->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  EXPECT_EQ(described->tags.at("karpenter.sh/nodeclaim"), "kept");
  EXPECT_EQ(described->tags.at("kubernetes.io/cluster/nodewright"), "owned");
  EXPECT_EQ(described->availabilityZone, kept->availabilityZone);

  auto listed = instances_->list();
  ASSERT_TRUE(listed) << listed.error().message();
  EXPECT_EQ(listed->size(), 2u);

  const std::set<std::string> known = {providerID(kept->availabilityZone, kept->instanceId)};
  auto young = instances_->garbageCollect(known, described->launchTime);
  ASSERT_TRUE(young) << young.error().message();
  EXPECT_TRUE(young->empty());
  auto collected = instances_->garbageCollect(known, described->launchTime + 1h);
  ASSERT_TRUE(collected) << collected.error().message();
  ASSERT_EQ(collected->size(), 1u);
  EXPECT_EQ(collected->front().instanceId, orphan->instanceId);

  ASSERT_TRUE(instances_->remove(kept->instanceId));
  auto gone = instances_->get(kept->instanceId);
  if (gone) {
    EXPECT_EQ(gone->state, "shutting-down");
  } else {
    EXPECT_TRUE(gone.error().is(core::Code::NotFound)) << gone.error().message();
  }
  auto unknown = instances_->remove("i-0123456789abcdef0");
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(unknown.error().is(core::Code::NotFound)) << unknown.error().message();
}

}  // namespace
}  // namespace nodewright::cloud::aws
