#include "controllers/staticpool/static_controller.h"

#include <algorithm>
#include <set>
#include <thread>

#include "controllers/disruption/disruption_env.h"
#include "support/kube/objects.h"

// The static NodePool controller over the embedded API server, one reconcile at a time with the
// caches refreshed first (DisruptionEnv plays the NodeClaim lifecycle): a static pool keeps
// exactly spec.replicas NodeClaims, within limits.nodes, trimming the least disruptive first.
namespace nodewright::controllers::staticpool {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using disruption::testing::DisruptionEnv;
using namespace std::chrono_literals;

class StaticPoolTest : public DisruptionEnv {
 protected:
  void addStaticPool(const std::string& name, int64_t replicas,
                     const std::function<void(NodePool&)>& customize = {}) {
    addPool(name, {}, [&](NodePool& pool) {
      pool.spec.replicas = replicas;
      // Would remove empty nodes at once in a dynamic pool.
      pool.spec.disruption.consolidateAfter = core::Duration(0s);
      if (customize) {
        customize(pool);
      }
    });
  }
  void scale(const std::string& name, int64_t replicas) {
    auto pool = kube::Typed<NodePool>(*client_).get("", name);
    ASSERT_TRUE(pool) << pool.error().describe();
    pool->spec.replicas = replicas;
    ASSERT_TRUE(kube::Typed<NodePool>(*client_).update(*pool));
  }
  void refreshAll() {
    refresh<Pod>(pods_);
    refresh<Node>(nodes_);
    refresh<NodeClaim>(claims_);
    refresh<NodePool>(pools_);
  }
  // One reconcile of `pool`; `fresh`: the caches show the API first.
  Decision converge(const std::string& pool, bool fresh = true) {
    if (fresh) {
      refreshAll();
    }
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(), pool);
    auto decision = controller_.converge(caches_, pool, context);
    EXPECT_TRUE(decision) << decision.error().message();
    return decision.value_or(Decision{});
  }
  std::set<std::string> claimNames(const std::string& pool) {
    std::set<std::string> out;
    for (const auto& c : claims()) {
      if (c.metadata.labels.count(api::karpenter::kNodePoolLabel) &&
          c.metadata.labels.at(api::karpenter::kNodePoolLabel) == pool) {
        out.insert(c.metadata.name);
      }
    }
    return out;
  }

  StaticController controller_{*client_, clock_, nullptr, metrics_};
};

TEST_F(StaticPoolTest, CreatesReplicasNodeClaimsFromTheTemplateAndNoMore) {
  addStaticPool("fixed", 3, [](NodePool& pool) {
    pool.spec.template_.metadata.labels = {{"team", "a"}};
    api::karpenter::NodeSelectorRequirementWithMinValues zone;
    zone.key = "topology.kubernetes.io/zone";
    zone.operator_ = "In";
    zone.values = {"zone-a"};
    pool.spec.template_.spec.requirements = {zone};
  });
  Decision first = converge("fixed");
  EXPECT_EQ(first.replicas, 3);
  EXPECT_EQ(first.created.size(), 3u);
  const auto stored = claims();
  ASSERT_EQ(stored.size(), 3u);
  for (const NodeClaim& c : stored) {
    EXPECT_EQ(c.metadata.labels.at(api::karpenter::kNodePoolLabel), "fixed");
    EXPECT_EQ(c.metadata.labels.at("team"), "a");
    EXPECT_EQ(c.metadata.labels.at("topology.kubernetes.io/zone"), "zone-a");
    ASSERT_EQ(c.metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(c.metadata.ownerReferences[0].kind, "NodePool");
    ASSERT_EQ(c.spec.requirements.size(), 1u) << "the template's, no instance types injected";
    EXPECT_TRUE(c.spec.resources.requests.empty());
    EXPECT_TRUE(c.metadata.annotations.count(api::karpenter::kNodePoolHashAnnotation));
  }
  EXPECT_TRUE(converge("fixed").created.empty());
  EXPECT_EQ(claims().size(), 3u);
}

TEST_F(StaticPoolTest, ClaimsTheCacheDoesNotShowYetStillCount) {
  addStaticPool("fixed", 2);
  EXPECT_EQ(converge("fixed").created.size(), 2u);
  // The informer has not delivered them: a second look must not create them again.
  EXPECT_TRUE(converge("fixed", /*fresh=*/false).created.empty());
  EXPECT_EQ(claims().size(), 2u);
}

TEST_F(StaticPoolTest, LimitsNodesCapsTheReplicas) {
  addStaticPool("capped", 5,
                [](NodePool& pool) { pool.spec.limits["nodes"] = core::Quantity::fromInt(2); });
  Decision first = converge("capped");
  EXPECT_EQ(first.created.size(), 2u);
  EXPECT_TRUE(first.atLimit);
  Decision again = converge("capped");
  EXPECT_TRUE(again.created.empty());
  EXPECT_TRUE(again.atLimit);
  EXPECT_EQ(claims().size(), 2u);
}

TEST_F(StaticPoolTest, ScalingDownRemovesTheLeastDisruptiveFirst) {
  addStaticPool("fixed", 5);
  addNode("busy", "fixed", 2, false);
  addNode("idle", "fixed", 0, false);
  addNode("light", "fixed", 1, false);
  addNode("guarded", "fixed", 0, false);
  bindPod("precious", "100m", "guarded");
  auto pod = kube::Typed<Pod>(*client_).get("default", "precious");
  ASSERT_TRUE(pod);
  pod->metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(kube::Typed<Pod>(*client_).update(*pod));
  NodeClaim pending;
  pending.apiVersion = "karpenter.sh/v1";
  pending.kind = "NodeClaim";
  pending.metadata.name = "unlaunched";
  pending.metadata.labels = {{api::karpenter::kNodePoolLabel, "fixed"}};
  pending.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  ASSERT_TRUE(kube::Typed<NodeClaim>(*client_).create(pending));

  EXPECT_TRUE(converge("fixed").deleted.empty()) << "5 for 5";
  scale("fixed", 2);
  Decision down = converge("fixed");
  EXPECT_EQ(down.deleted, (std::vector<std::string>{"unlaunched", "idle", "light"}));
  EXPECT_EQ(claimNames("fixed"), (std::set<std::string>{"busy", "guarded"}));
  EXPECT_TRUE(converge("fixed").deleted.empty());

  scale("fixed", 0);
  EXPECT_EQ(converge("fixed").deleted, (std::vector<std::string>{"busy", "guarded"}))
      << "do-not-disrupt goes last, but it goes";
  EXPECT_TRUE(claimNames("fixed").empty());
}

TEST_F(StaticPoolTest, DeletionsTheCacheDoesNotShowYetAreNotRepeated) {
  addStaticPool("fixed", 3);
  addNode("a", "fixed", 0, false);
  addNode("b", "fixed", 1, false);
  addNode("c", "fixed", 2, false);
  scale("fixed", 2);
  EXPECT_EQ(converge("fixed").deleted, std::vector<std::string>{"a"});
  // Stale caches still show "a": it is not chosen again and nothing else goes.
  refresh<NodePool>(pools_);
  EXPECT_TRUE(converge("fixed", /*fresh=*/false).deleted.empty());
  EXPECT_TRUE(converge("fixed", /*fresh=*/false).created.empty());
  EXPECT_EQ(claimNames("fixed"), (std::set<std::string>{"b", "c"}));
}

TEST_F(StaticPoolTest, ANodeBeingReplacedByDisruptionIsNeitherSurplusNorMissing) {
  addStaticPool("fixed", 2);
  addNode("old", "fixed", 1, /*drifted=*/true);
  addNode("other", "fixed", 0, false);
  disruption::PassReport report = pass();
  ASSERT_EQ(report.started, std::vector<std::string>{"old"});
  ASSERT_EQ(replacementsOf("old").size(), 1u);
  // Three claims for two replicas while the replacement comes up: nothing to trim or add.
  Decision during = converge("fixed");
  EXPECT_EQ(during.live, 3);
  EXPECT_TRUE(during.deleted.empty());
  EXPECT_TRUE(during.created.empty());
  initialize(replacementsOf("old")[0]);
  EXPECT_EQ(pass().deleted, std::vector<std::string>{"old"});
  Decision after = converge("fixed");
  EXPECT_TRUE(after.deleted.empty());
  EXPECT_TRUE(after.created.empty());
  EXPECT_EQ(claimNames("fixed").size(), 2u);
}

TEST_F(StaticPoolTest, PodsNeverChangeTheCount) {
  addStaticPool("fixed", 1);
  addNode("only", "fixed", 2, false);
  for (int i = 0; i < 5; ++i) {
    Pod pod = disruption::testing::fixture::pod("pending-" + std::to_string(i), "1", "1Gi");
    pod.apiVersion = "v1";
    pod.kind = "Pod";
    pod.metadata.namespace_ = "default";
    pod.spec.containers[0].image = "registry.k8s.io/pause:3.9";
    ASSERT_TRUE(kube::Typed<Pod>(*client_).create(pod));
  }
  Decision decision = converge("fixed");
  EXPECT_TRUE(decision.created.empty());
  EXPECT_TRUE(decision.deleted.empty());
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(StaticPoolTest, DynamicPoolsAreLeftAlone) {
  addPool("dynamic");
  addNode("n", "dynamic", 0, false);
  Decision decision = converge("dynamic");
  EXPECT_TRUE(decision.created.empty());
  EXPECT_TRUE(decision.deleted.empty());
  EXPECT_EQ(claims().size(), 1u);
}

TEST_F(StaticPoolTest, ReconcilesThroughTheManagerAsReplicasChange) {
  addStaticPool("managed", 3);
  runtime::ManagerOptions options;
  options.clock = &clock_;
  options.metrics = &metrics_;
  runtime::Manager manager(*client_, options);
  StaticController controller(*client_, clock_, nullptr, metrics_);
  controller.setup(manager);
  std::jthread runner([&](std::stop_token stop) { (void)manager.run(stop); });
  EXPECT_TRUE(kube::testing::eventually([&] { return claimNames("managed").size() == 3; }));
  scale("managed", 1);
  EXPECT_TRUE(kube::testing::eventually([&] { return claimNames("managed").size() == 1; }));
  scale("managed", 2);
  EXPECT_TRUE(kube::testing::eventually([&] { return claimNames("managed").size() == 2; }));
  runner.request_stop();
  runner.join();
  EXPECT_EQ(claimNames("managed").size(), 2u);
}

}  // namespace
}  // namespace nodewright::controllers::staticpool
