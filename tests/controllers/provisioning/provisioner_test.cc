#include "controllers/provisioning/provisioner.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "controllers/provisioning/scheduling/fixture.h"
#include "runtime/events.h"
#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/rest_config.h"

// The provisioner's passes against the embedded API server, with caches the test fills (so it
// decides what the informers have seen): NodeClaims are created once for the same pods, pods
// that fit a Node or a claim in flight make no claim, and a claim gone from the cluster no
// longer holds its pods.
namespace nodewright::controllers::provisioning {
namespace {

using api::karpenter::NodeClaim;
using namespace std::chrono_literals;
namespace fixture = scheduling::testing;

class ProvisionerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10),
                             fixture::instanceType("m.xlarge", 4, 16, 60, 0.20)});
    api::karpenter::NodePool pool = fixture::nodePool("default");
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.uid = "3f1c2a4e-0000-4000-8000-000000000001";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pools_.upsert(object(pool));
    caches_.pods = &pods_;
    caches_.nodes = &nodes_;
    caches_.nodeClaims = &claims_;
    caches_.nodePools = &pools_;
    caches_.daemonSets = &daemonSets_;
  }

  template <class T>
  api::Object object(T value) {
    return api::Object(&kube::kindOf<T>(), std::make_shared<T>(std::move(value)));
  }

  void addPending(const std::string& name, const char* cpu) {
    pods_.upsert(object(fixture::pod(name, cpu, "1Gi")));
  }

  PassSummary pass() {
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                             Provisioner::kSingletonKey);
    auto summary = provisioner_.provision(caches_, context);
    EXPECT_TRUE(summary) << summary.error().message();
    return summary.value_or(PassSummary{});
  }

  std::vector<NodeClaim> storedClaims() {
    auto got = kube::Typed<NodeClaim>(*client_).list("");
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(std::vector<NodeClaim>{});
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  core::FakeClock clock_;
  runtime::Registry metrics_;
  cloud::testing::FakeCloudProvider cloud_;
  ProvisionerOptions options_{BatchWindows{}, PendingRule::Unbound, std::chrono::seconds(30)};
  Provisioner provisioner_{*client_, cloud_, clock_, nullptr, metrics_, options_};
  kube::Cache pods_, nodes_, claims_, pools_, daemonSets_;
  ClusterCaches caches_;
};

TEST_F(ProvisionerTest, PendingPodsGetOneClaimFromTheTemplate) {
  addPending("a", "1");
  addPending("b", "1");
  addPending("c", "1");
  const PassSummary summary = pass();
  EXPECT_EQ(summary.pendingPods, 3u);
  ASSERT_EQ(summary.createdNodeClaims.size(), 1u);
  const auto claims = storedClaims();
  ASSERT_EQ(claims.size(), 1u);
  const NodeClaim& claim = claims[0];
  EXPECT_EQ(claim.metadata.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(claim.spec.nodeClassRef.name, "default");
  // 3 cpu of pods: only the 4-cpu type holds them.
  bool sawTypes = false;
  for (const auto& r : claim.spec.requirements) {
    if (r.key == "node.kubernetes.io/instance-type") {
      sawTypes = true;
      EXPECT_EQ(r.values, std::vector<std::string>{"m.xlarge"});
    }
  }
  EXPECT_TRUE(sawTypes);
  EXPECT_EQ(claim.spec.resources.requests.at("cpu"), core::Quantity::fromInt(3));
}

TEST_F(ProvisionerTest, AClaimTheCacheHasNotShownYetStillHoldsItsPods) {
  addPending("a", "1");
  ASSERT_EQ(pass().createdNodeClaims.size(), 1u);
  // The informer is behind: the claim is not in the cache, the pod is still pending.
  const PassSummary again = pass();
  EXPECT_TRUE(again.createdNodeClaims.empty());
  EXPECT_EQ(again.onExistingNodes, 1u);
  EXPECT_EQ(storedClaims().size(), 1u);
}

TEST_F(ProvisionerTest, AClaimInTheCacheHoldsItsPodsUntilItIsGone) {
  addPending("a", "1");
  ASSERT_EQ(pass().createdNodeClaims.size(), 1u);
  const NodeClaim claim = storedClaims().at(0);
  claims_.upsert(object(claim));
  EXPECT_TRUE(pass().createdNodeClaims.empty());

  // Deleted (a capacity shortage, say): the pod needs a claim again.
  claims_.erase(claim.metadata.name);
  const PassSummary after = pass();
  EXPECT_EQ(after.createdNodeClaims.size(), 1u);
  EXPECT_EQ(storedClaims().size(), 2u);
}

TEST_F(ProvisionerTest, PodsThatFitANodeMakeNoClaim) {
  api::corev1::Node node;
  node.metadata.name = "node-1";
  node.metadata.labels = {{"karpenter.sh/nodepool", "default"},
                          {"karpenter.sh/initialized", "true"},
                          {"node.kubernetes.io/instance-type", "m.xlarge"}};
  node.status.allocatable = {
      {"cpu", fixture::q("4")}, {"memory", fixture::q("16Gi")}, {"pods", fixture::q("60")}};
  nodes_.upsert(object(node));
  addPending("a", "1");
  addPending("b", "2");
  addPending("c", "2");  // 5 cpu: one pod does not fit the node
  const PassSummary summary = pass();
  EXPECT_EQ(summary.onExistingNodes, 2u);
  EXPECT_EQ(summary.createdNodeClaims.size(), 1u);
}

TEST_F(ProvisionerTest, NothingPendingIsAQuietPass) {
  const PassSummary summary = pass();
  EXPECT_EQ(summary.pendingPods, 0u);
  EXPECT_TRUE(summary.createdNodeClaims.empty());
  EXPECT_TRUE(storedClaims().empty());
}

// A pod too big for every offered type: its FailedScheduling event names why the cloud left the
// other types out, with the most frequent rule first and one type's own reason as an example.
TEST_F(ProvisionerTest, FailedSchedulingNamesTheTopExclusionReasons) {
  cloud_.setExclusions(
      {{"x.large", "4 network interfaces on network card 0, x.large allows 3",
        "cannot carry the network interfaces asked for"},
       {"x.2xlarge", "4 network interfaces on network card 0, x.2xlarge allows 3",
        "cannot carry the network interfaces asked for"},
       {"z.large", "z.large is not offered in the node class's zones (us-east-1a)",
        "not offered in the node class's zones"}});
  runtime::EventRecorderOptions recorderOptions;
  recorderOptions.component = "provisioner";
  runtime::EventRecorder recorder(*client_, clock_, recorderOptions);
  Provisioner provisioner(*client_, cloud_, clock_, &recorder, metrics_, options_);
  addPending("huge", "64");
  runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                           Provisioner::kSingletonKey);
  auto summary = provisioner.provision(caches_, context);
  ASSERT_TRUE(summary) << summary.error().message();
  EXPECT_EQ(summary->unschedulable, 1u);
  recorder.flush();
  auto events = kube::Typed<api::corev1::Event>(*client_).list("");
  ASSERT_TRUE(events) << events.error().describe();
  std::string message;
  for (const auto& e : *events) {
    if (e.involvedObject.name == "huge" && e.reason == "FailedScheduling") {
      message = e.message;
    }
  }
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("; nodepool default: 3 of 5 instance types excluded: 2 cannot carry the "
                         "network interfaces asked for (e.g. 4 network interfaces on network "
                         "card 0, x.2xlarge allows 3); 1 not offered in the node class's zones "
                         "(e.g. z.large is not offered in the node class's zones (us-east-1a))"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace nodewright::controllers::provisioning
