// AwsCloudProvider::isDrifted end to end against the EC2 emulator: a claim is stamped at launch,
// and drifts once its subnet, its security groups or its alias's image resolve differently,
// changed through the EC2 and SSM wire as an operator or AWS would change them.
#include <gtest/gtest.h>

#include <algorithm>

#include "api/karpenter/hashing.h"
#include "api/reflect/redact.h"
#include "aws/json_client.h"
#include "core/clock.h"
#include "drift_fixture.h"
#include "support/cloud/aws/provider_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::cloud::aws::testing {
namespace {

using api::karpenter::NodeClaim;

constexpr const char* kDiscovery = "karpenter.sh/discovery";
// The default world's untagged group in the cluster's VPC.
constexpr const char* kDefaultGroup = "sg-0e2c4a6f8b1d30000";
constexpr const char* kAliasParameter =
    "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id";

class ProviderDriftTest : public ProviderTest {
 protected:
  void SetUp() override {
    start();
    wire_ = std::make_unique<emulators::testing::QueryClient>(server_->url(), core::systemClock());
    nc_ = discoveryNodeClass("default");
    resolveStatus("1");
  }

  // What the node class controller does: resolve again and write the status (a new version).
  void resolveStatus(const std::string& resourceVersion) {
    stack().resolver().invalidate();
    auto resolved = stack().resolver().resolve(nc_);
    ASSERT_TRUE(resolved) << resolved.error().message();
    nc_.status = resolved->status;
    nc_.metadata.resourceVersion = resourceVersion;
    nodeClasses_[nc_.metadata.name] = nc_;
  }

  // A claim launched by the provider, with what the lifecycle controller records of the launch.
  NodeClaim launch(const std::string& name, AwsCloudProvider* through = nullptr) {
    NodeClaim claim = nodeClaim(name, "default", {"m5.large"});
    auto machine = (through != nullptr ? *through : provider()).create(claim);
    EXPECT_TRUE(machine) << machine.error().message();
    if (machine) {
      claim.status.providerID = machine->providerID;
      claim.status.imageID = machine->imageID;
      for (const auto& [key, value] : machine->labels) {
        claim.metadata.labels[key] = value;
      }
      claim.metadata.annotations = machine->annotations;
    }
    return claim;
  }

  std::vector<DriftCheck> checksOf(const NodeClaim& claim, AwsCloudProvider* through = nullptr) {
    auto checks = (through != nullptr ? *through : provider()).isDrifted(claim);
    EXPECT_TRUE(checks) << checks.error().message();
    return checks ? *checks : std::vector<DriftCheck>{};
  }

  std::string subnetOf(const NodeClaim& claim) {
    auto id = parseProviderID(claim.status.providerID);
    auto instances = stack().ec2().describeInstances({*id});
    EXPECT_TRUE(instances && instances->size() == 1u);
    return instances && !instances->empty() ? instances->front().subnetId : "";
  }

  void ec2(const std::string& action, const nodewright::aws::ParamPairs& params) {
    auto response = wire_->call(action, params);
    ASSERT_TRUE(response) << response.error().message();
    ASSERT_EQ(response->status, 200) << response->body;
  }

  size_t describeInstancesSent() const { return recorder_->requests("DescribeInstances").size(); }

  // Another provider over the same stack, as a restarted controller has: nothing remembered.
  std::unique_ptr<AwsCloudProvider> freshProvider(
      api::karpenter::HashPolicy policy = api::karpenter::defaultHashPolicy()) {
    return std::make_unique<AwsCloudProvider>(
        AwsProviders{stack().resolver(), stack().instanceTypes(), stack().launchTemplates(),
                     stack().instances()},
        [this](const std::string& name) -> core::Result<api::karpenter::EC2NodeClass> {
          auto it = nodeClasses_.find(name);
          if (it == nodeClasses_.end()) {
            return core::fail(core::Error::notFound("no EC2NodeClass " + name));
          }
          return it->second;
        },
        std::move(policy));
  }

  api::karpenter::EC2NodeClass nc_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

TEST_F(ProviderDriftTest, ALaunchIsStampedWithTheNodeClassHash) {
  const NodeClaim claim = launch("stamped");
  const auto& annotations = claim.metadata.annotations;
  EXPECT_EQ(annotations.at(api::karpenter::kNodeClassHashAnnotation),
            api::karpenter::nodeClassHash(nc_, api::karpenter::defaultHashPolicy()));
  EXPECT_EQ(annotations.at(api::karpenter::kNodeClassHashVersionAnnotation), "nw1");
  EXPECT_TRUE(annotations.contains(api::karpenter::kNodeClassStaticAnnotation));
}

TEST_F(ProviderDriftTest, AFreshLaunchIsNotDrifted) {
  const NodeClaim claim = launch("fresh");
  const auto checks = checksOf(claim);
  EXPECT_EQ(names(checks),
            (std::vector<std::string>{"NodeClass", "AMI", "Subnet", "SecurityGroups"}));
  EXPECT_EQ(drifted(checks), std::vector<std::string>{});
  // Every check compared something: the instance's network is known.
  EXPECT_EQ(checks[1].detail, claim.status.imageID + " is the AMI resolved for amd64 nodes");
  EXPECT_EQ(checks[2].detail, subnetOf(claim) + " is among the 3 resolved subnets");
  EXPECT_EQ(checks[3].detail, "exactly the resolved sg-0e2c4a6f8b1d30001");
}

TEST_F(ProviderDriftTest, RetaggingTheSubnetAwayDriftsTheClaim) {
  const NodeClaim claim = launch("retagged-subnet");
  const std::string subnet = subnetOf(claim);
  ASSERT_FALSE(subnet.empty());
  ec2("DeleteTags", {{"ResourceId.1", subnet}, {"Tag.1.Key", kDiscovery}});
  resolveStatus("2");
  ASSERT_EQ(nc_.status.subnets.size(), 2u);

  const DriftCheck check = find(checksOf(claim), "Subnet");
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(check.reason, "SubnetDrifted");
  EXPECT_EQ(check.detail, subnet + " is not among the resolved subnets " +
                              std::min(nc_.status.subnets[0].id, nc_.status.subnets[1].id) + ", " +
                              std::max(nc_.status.subnets[0].id, nc_.status.subnets[1].id));
  EXPECT_EQ(drifted(checksOf(claim)), std::vector<std::string>{"Subnet"});
}

TEST_F(ProviderDriftTest, TaggingAnotherSecurityGroupDriftsTheClaim) {
  const NodeClaim claim = launch("retagged-group");
  ec2("CreateTags",
      {{"ResourceId.1", kDefaultGroup}, {"Tag.1.Key", kDiscovery}, {"Tag.1.Value", "nodewright"}});
  resolveStatus("2");

  const DriftCheck check = find(checksOf(claim), "SecurityGroups");
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(check.reason, "SecurityGroupDrifted");
  EXPECT_EQ(check.detail,
            "security groups sg-0e2c4a6f8b1d30001 are not the resolved sg-0e2c4a6f8b1d30000, "
            "sg-0e2c4a6f8b1d30001: sg-0e2c4a6f8b1d30000 missing");
}

TEST_F(ProviderDriftTest, PublishingANewImageBehindTheAliasDriftsTheClaim) {
  const NodeClaim claim = launch("old-image");
  // AWS releases a new build: a copy of the image under a new id, and the alias's parameter
  // pointed at it.
  auto copied = wire_->call("CopyImage", {{"SourceImageId", claim.status.imageID},
                                          {"SourceRegion", "us-east-1"},
                                          {"Name", "amazon-eks-node-al2023-next"}});
  ASSERT_TRUE(copied && copied->status == 200) << (copied ? copied->body : "");
  const std::string next = copied->firstText("imageId");
  nodewright::aws::JsonClientOptions ssm;
  ssm.endpoint = server_->url();
  ssm.region = "us-east-1";
  ssm.service = "ssm";
  ssm.targetPrefix = "AmazonSSM";
  ssm.credentials = [] {
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  nodewright::aws::JsonClient json(core::systemClock(), *curl_, ssm);
  auto put = json.call(
      "PutParameter",
      {{"Name", kAliasParameter}, {"Value", next}, {"Type", "String"}, {"Overwrite", true}});
  ASSERT_TRUE(put) << put.error().message;
  resolveStatus("2");

  const DriftCheck check = find(checksOf(claim), "AMI");
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(check.reason, "AMIDrifted");
  ASSERT_EQ(check.changes.size(), 1u);
  EXPECT_EQ(check.changes[0].from, api::Json(claim.status.imageID));
  EXPECT_EQ(check.changes[0].to, api::Json(next));
  // A claim launched now gets the new image and is not drifted.
  const NodeClaim renewed = launch("new-image");
  EXPECT_EQ(renewed.status.imageID, next);
  EXPECT_EQ(drifted(checksOf(renewed)), std::vector<std::string>{});
}

// CreateFleet's answer tells neither the instance's security groups nor its interfaces, so the
// first check of a claim asks EC2 about its instance, by id; list() (GC's, every minute) tells
// the provider about every instance at once.
// Karpenter v1.14's placement groups end to end: the node class's selector resolves the group
// (PlacementGroupReady), the launch template places instances in it, the claim carries its id,
// and once the node class selects no group the claim drifts (PlacementGroupDrift).
TEST_F(ProviderDriftTest, APlacementGroupIsLaunchedIntoAndLeavingItDrifts) {
  ec2("CreatePlacementGroup", {{"GroupName", "hpc"}, {"Strategy", "cluster"}});
  nc_.spec.placementGroupSelector = api::karpenter::PlacementGroupSelector{"hpc", std::nullopt};
  resolveStatus("2");
  auto ready = std::find_if(nc_.status.conditions.begin(), nc_.status.conditions.end(),
                            [](const auto& c) { return c.type == "PlacementGroupReady"; });
  ASSERT_NE(ready, nc_.status.conditions.end());
  EXPECT_EQ(ready->status, "True");

  const NodeClaim claim = launch("grouped");
  const std::string group = claim.metadata.labels.at("karpenter.k8s.aws/placement-group-id");
  EXPECT_TRUE(group.starts_with("pg-")) << group;
  EXPECT_EQ(recorder_->values("CreateLaunchTemplate", R"(LaunchTemplateData\.Placement\.GroupId)"),
            std::vector<std::string>{group});
  auto id = parseProviderID(claim.status.providerID);
  auto instances = stack().ec2().describeInstances({*id});
  ASSERT_TRUE(instances && instances->size() == 1u);
  EXPECT_EQ(instances->front().placementGroupId, group);
  EXPECT_FALSE(find(checksOf(claim), "PlacementGroup").drifted);

  nc_.spec.placementGroupSelector.reset();
  resolveStatus("3");
  const DriftCheck check = find(checksOf(claim), "PlacementGroup");
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(check.reason, "PlacementGroupDrift");
  EXPECT_EQ(check.detail, "launched in " + group + ", the node class's is now none");

  nc_.spec.placementGroupSelector = api::karpenter::PlacementGroupSelector{"gone", std::nullopt};
  resolveStatus("4");
  ready = std::find_if(nc_.status.conditions.begin(), nc_.status.conditions.end(),
                       [](const auto& c) { return c.type == "PlacementGroupReady"; });
  ASSERT_NE(ready, nc_.status.conditions.end());
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "PlacementGroupNotFound");
  EXPECT_EQ(ready->message, "Placement group \"gone\" not found");
}

TEST_F(ProviderDriftTest, AnInstanceNotSeenBeforeIsLookedUpOnceByItself) {
  const NodeClaim claim = launch("looked-up");
  const size_t before = describeInstancesSent();
  EXPECT_EQ(drifted(checksOf(claim)), std::vector<std::string>{});
  EXPECT_EQ(describeInstancesSent(), before + 1);
  const auto id = parseProviderID(claim.status.providerID);
  // No sweep: the one instance, by id.
  std::vector<std::string> asked;
  const auto sent = recorder_->requests("DescribeInstances");
  for (const auto& [name, value] : sent.back()) {
    if (name.starts_with("InstanceId.") || name.starts_with("Filter.")) {
      asked.push_back(name + "=" + value);
    }
  }
  EXPECT_EQ(asked, std::vector<std::string>{"InstanceId.1=" + *id});
  checksOf(claim);
  EXPECT_EQ(describeInstancesSent(), before + 1) << "the answer is remembered";
}

TEST_F(ProviderDriftTest, ListingRemembersEveryInstance) {
  const NodeClaim a = launch("listed-a");
  const NodeClaim b = launch("listed-b");
  auto restarted = freshProvider();
  ASSERT_TRUE(restarted->list());
  const size_t before = describeInstancesSent();
  checksOf(a, restarted.get());
  checksOf(b, restarted.get());
  EXPECT_EQ(describeInstancesSent(), before);
}

TEST_F(ProviderDriftTest, ANodeClassIsReadAgainWhenItsVersionChanges) {
  const NodeClaim claim = launch("changed-class");
  EXPECT_EQ(drifted(checksOf(claim)), std::vector<std::string>{});
  nc_.spec.userData = "echo changed";
  nodeClasses_[nc_.metadata.name] = nc_;
  // The same resourceVersion is the same node class: its context (and hash) is reused.
  EXPECT_EQ(drifted(checksOf(claim)), std::vector<std::string>{});
  nc_.metadata.resourceVersion = "2";
  nodeClasses_[nc_.metadata.name] = nc_;
  const DriftCheck check = checksOf(claim).front();
  EXPECT_TRUE(check.drifted);
  EXPECT_EQ(describe(check),
            "spec.userData: <absent> -> \"" + api::reflect::redacted("echo changed") + "\"");
}

TEST_F(ProviderDriftTest, AnotherHashPolicyStampsItsVersionAndReStampsOthers) {
  const NodeClaim before = launch("before-upgrade");
  auto upgraded = freshProvider(api::karpenter::HashPolicy{"nw2", 7});
  const NodeClaim after = launch("after-upgrade", upgraded.get());
  EXPECT_EQ(after.metadata.annotations.at(api::karpenter::kNodeClassHashVersionAnnotation), "nw2");
  const auto checks = checksOf(before, upgraded.get());
  EXPECT_EQ(drifted(checks), std::vector<std::string>{});
  EXPECT_EQ(checks.front().detail,
            "stamped under hash version nw1, running nw2: re-stamped, not drift");
}

TEST_F(ProviderDriftTest, ChecksThatCannotBeMadeAreErrors) {
  NodeClaim claim = launch("errors");
  NodeClaim unlaunched = claim;
  unlaunched.status.providerID.clear();
  auto invalid = provider().isDrifted(unlaunched);
  ASSERT_FALSE(invalid);
  EXPECT_TRUE(invalid.error().is(core::Code::Invalid)) << invalid.error().message();

  NodeClaim orphan = claim;
  orphan.spec.nodeClassRef.name = "gone";
  nodeClasses_.erase("gone");
  auto missing = freshProvider()->isDrifted(orphan);
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(core::Code::NotFound)) << missing.error().message();
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
