#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "controllers/provisioning/nodeclaim_factory.h"
#include "controllers/provisioning/provisioner.h"
#include "controllers/provisioning/scheduling/fixture.h"
#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/rest_config.h"

// The provisioner and static NodePools (spec.replicas), as Karpenter's: pending pods may land on
// a static pool's nodes, but never make it a NodeClaim; a dynamic pool still serves them.
namespace nodewright::controllers::provisioning {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using namespace std::chrono_literals;
namespace fixture = scheduling::testing;

class StaticPoolProvisioning : public ::testing::Test {
 protected:
  void SetUp() override {
    cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10)});
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
  void addPool(const std::string& name, std::optional<int64_t> replicas) {
    NodePool pool = fixture::nodePool(name);
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.replicas = replicas;
    // As if stored: the claims it makes name it as their owner, and an owner reference needs a uid.
    pool.metadata.uid = "uid-" + name;
    pools_.upsert(object(pool));
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

TEST_F(StaticPoolProvisioning, PendingPodsNeverGrowAStaticPool) {
  addPool("fixed", 2);
  pods_.upsert(object(fixture::pod("a", "1", "1Gi")));
  const PassSummary summary = pass();
  EXPECT_EQ(summary.pendingPods, 1u);
  EXPECT_TRUE(summary.createdNodeClaims.empty());
  EXPECT_EQ(summary.unschedulable, 1u);
  EXPECT_TRUE(storedClaims().empty());
}

TEST_F(StaticPoolProvisioning, ADynamicPoolBesideItStillServesThePods) {
  addPool("a-fixed", 3);
  addPool("z-dynamic", std::nullopt);
  pods_.upsert(object(fixture::pod("a", "1", "1Gi")));
  ASSERT_EQ(pass().createdNodeClaims.size(), 1u);
  EXPECT_EQ(storedClaims().at(0).metadata.labels.at("karpenter.sh/nodepool"), "z-dynamic");
}

TEST_F(StaticPoolProvisioning, PodsLandOnAStaticPoolsNodes) {
  addPool("fixed", 1);
  api::corev1::Node node;
  node.metadata.name = "static-node";
  node.metadata.labels = {{"karpenter.sh/nodepool", "fixed"},
                          {"karpenter.sh/initialized", "true"},
                          {"node.kubernetes.io/instance-type", "m.large"}};
  node.status.allocatable = {
      {"cpu", fixture::q("2")}, {"memory", fixture::q("8Gi")}, {"pods", fixture::q("30")}};
  nodes_.upsert(object(node));
  pods_.upsert(object(fixture::pod("a", "1", "1Gi")));
  const PassSummary summary = pass();
  EXPECT_EQ(summary.onExistingNodes, 1u);
  EXPECT_TRUE(summary.createdNodeClaims.empty());
}

TEST(StaticNodeClaim, IsTheTemplateAlone) {
  NodePool pool = fixture::nodePool("fixed");
  pool.metadata.uid = "uid-1";
  pool.spec.replicas = 1;
  pool.spec.template_.metadata.labels = {{"team", "a"}};
  pool.spec.template_.spec.requirements = {
      fixture::requirement("karpenter.sh/capacity-type", "In", {"on-demand"}),
      fixture::requirement("kubernetes.io/arch", "In", {"amd64", "arm64"})};
  const NodeClaim claim = makeStaticNodeClaim(pool, api::karpenter::defaultHashPolicy());
  EXPECT_EQ(claim.metadata.generateName, "fixed-");
  EXPECT_EQ(claim.metadata.labels.at("karpenter.sh/nodepool"), "fixed");
  EXPECT_EQ(claim.metadata.labels.at("team"), "a");
  EXPECT_EQ(claim.metadata.labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_FALSE(claim.metadata.labels.count("kubernetes.io/arch")) << "two values: no label";
  ASSERT_EQ(claim.spec.requirements.size(), 2u) << "the template's, no instance types added";
  EXPECT_EQ(claim.spec.requirements[1].key, "kubernetes.io/arch");
  EXPECT_EQ(claim.spec.requirements[1].values, (std::vector<std::string>{"amd64", "arm64"}));
  EXPECT_TRUE(claim.spec.resources.requests.empty());
  ASSERT_EQ(claim.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(claim.metadata.ownerReferences[0].uid, "uid-1");
}

}  // namespace
}  // namespace nodewright::controllers::provisioning
