#include <map>
#include <set>

#include "aws/json_client.h"
#include "drift_support.h"

// Dynamic drift end to end, against the EC2 emulator: the world changes under the node class (a
// subnet loses its discovery tag, a new image is published behind the alias), the node class's
// status follows, the affected nodes drift and are replaced one budget's worth at a time while
// the pods move within their PodDisruptionBudget, and the replaced instances are terminated.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::instanceIdOf;
using testing::isDrifted;
using testing::RolloutWatch;
using testing::testdata;

constexpr const char* kDiscovery = "karpenter.sh/discovery";

// Short periods so the world's changes reach the node class status, and drift, in seconds.
void fastDrift(cmd::ControllerSetOptions& options) {
  options.aws.resolverTtl = 1s;
  options.nodeClasses.resolveEvery = 1s;
  options.drift.recheck = 2s;
  options.disruption.pollInterval = 1s;
}

class DynamicDriftTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.startControllers(fastDrift);
    cluster_.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
    cluster_.kubectl({"apply", "-f", "-"}, testing::nodePoolWithBudget("1"));
    cluster_.kubectl({"apply", "-f", "-"}, testing::kSpreadWorkload);
    ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster_, 3); }, 120s));
    launched_ = cluster_.nodeClaims();
    ASSERT_EQ(launched_.size(), 3u);
  }

  std::string subnetOf(const api::karpenter::NodeClaim& claim) {
    auto instances = cluster_.agentStack().ec2().describeInstances({instanceIdOf(claim)});
    EXPECT_TRUE(instances && instances->size() == 1);
    return instances && !instances->empty() ? instances->front().subnetId : std::string();
  }

  // Waits until none of `affected` is left and every pod runs again, watching the rollout.
  void awaitReplaced(const std::set<std::string>& affected, RolloutWatch& watch) {
    ASSERT_TRUE(kube::testing::eventually(
        [&] {
          watch.look(cluster_);
          for (const auto& claim : cluster_.nodeClaims()) {
            if (affected.contains(claim.metadata.name)) {
              return false;
            }
          }
          return allPodsRunning(cluster_, 3);
        },
        240s))
        << "the drifted nodes were not all replaced";
  }

  // Every machine of `claims` is gone from the cloud.
  void expectTerminated(const std::vector<api::karpenter::NodeClaim>& claims) {
    for (const auto& claim : claims) {
      auto machine = cluster_.agentStack().provider().get(claim.status.providerID);
      EXPECT_TRUE(!machine && machine.error().is(core::Code::NotFound))
          << claim.status.providerID << " still runs";
    }
  }

  EmbeddedCluster cluster_;
  std::vector<api::karpenter::NodeClaim> launched_;
};

TEST_F(DynamicDriftTest, ASubnetRetaggedAwayDriftsItsNodesWhichAreReplacedOneAtATime) {
  const std::string subnet = subnetOf(launched_.front());
  ASSERT_FALSE(subnet.empty());
  std::set<std::string> affected;
  std::vector<api::karpenter::NodeClaim> affectedClaims;
  for (const auto& claim : launched_) {
    if (subnetOf(claim) == subnet) {
      affected.insert(claim.metadata.name);
      affectedClaims.push_back(claim);
    }
  }
  auto removed = cluster_.agentStack().ec2().query().call(
      "DeleteTags", {{"ResourceId.1", subnet}, {"Tag.1.Key", kDiscovery}});
  ASSERT_TRUE(removed) << removed.error().message;

  // The condition names the check and the subnet.
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        for (const auto& claim : cluster_.nodeClaims()) {
          if (affected.contains(claim.metadata.name) && isDrifted(claim)) {
            const auto* drifted = controllers::nodeclaim::findCondition(claim.status.conditions,
                                                                        api::karpenter::kDrifted);
            EXPECT_EQ(drifted->reason, "SubnetDrifted");
            EXPECT_NE(drifted->message.find(subnet), std::string::npos) << drifted->message;
            return true;
          }
        }
        return false;
      },
      60s));
  RolloutWatch watch;
  awaitReplaced(affected, watch);
  EXPECT_LE(watch.mostInCommand, 1u) << "the budget of one node was exceeded";
  EXPECT_GE(watch.fewestRunning, 2u) << "more pods were away than the PodDisruptionBudget allows";
  for (const auto& claim : cluster_.nodeClaims()) {
    EXPECT_NE(subnetOf(claim), subnet) << claim.metadata.name << " still runs in " << subnet;
    EXPECT_FALSE(isDrifted(claim)) << claim.metadata.name;
  }
  // The unaffected nodes were left alone.
  for (const auto& claim : launched_) {
    if (!affected.contains(claim.metadata.name)) {
      bool kept = false;
      for (const auto& now : cluster_.nodeClaims()) {
        kept = kept || now.metadata.name == claim.metadata.name;
      }
      EXPECT_TRUE(kept) << claim.metadata.name << " was not drifted but was replaced";
    }
  }
  expectTerminated(affectedClaims);
}

TEST_F(DynamicDriftTest, ANewImageBehindTheAliasDriftsEveryNodeAndTheFleetRollsToIt) {
  const std::string oldImage = launched_.front().status.imageID;
  auto copied = cluster_.agentStack().ec2().query().call(
      "CopyImage", {{"SourceImageId", oldImage},
                    {"SourceRegion", "us-east-1"},
                    {"Name", "amazon-eks-node-al2023-x86_64-standard-next"}});
  ASSERT_TRUE(copied) << copied.error().message;
  const auto start = copied->find("<imageId>");
  ASSERT_NE(start, std::string::npos) << *copied;
  const std::string next = copied->substr(start + 9, copied->find("</imageId>") - start - 9);

  auto transport = nodewright::aws::makeCurlTransport();
  nodewright::aws::JsonClientOptions ssm;
  ssm.endpoint = cluster_.awsEndpoint();
  ssm.region = "us-east-1";
  ssm.service = "ssm";
  ssm.targetPrefix = "AmazonSSM";
  ssm.credentials = [] {
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  nodewright::aws::JsonClient json(core::systemClock(), *transport, ssm);
  auto put = json.call("PutParameter",
                       {{"Name",
                         "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/"
                         "recommended/image_id"},
                        {"Value", next},
                        {"Type", "String"},
                        {"Overwrite", true}});
  ASSERT_TRUE(put) << put.error().message;

  std::set<std::string> affected;
  for (const auto& claim : launched_) {
    affected.insert(claim.metadata.name);
  }
  RolloutWatch watch;
  awaitReplaced(affected, watch);
  EXPECT_LE(watch.mostInCommand, 1u);
  EXPECT_GE(watch.fewestRunning, 2u);
  for (const auto& claim : cluster_.nodeClaims()) {
    EXPECT_EQ(claim.status.imageID, next) << claim.metadata.name;
  }
  expectTerminated(launched_);
}

}  // namespace
}  // namespace nodewright::e2e
