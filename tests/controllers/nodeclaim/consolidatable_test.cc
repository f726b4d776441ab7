#include "api/karpenter/nodepool.h"
#include "controllers/nodeclaim/nodeclaim_env.h"

// The Consolidatable condition: set once the NodePool's consolidateAfter has passed since the
// claim was initialized or since the last pod arrived on or left its Node, cleared meanwhile
// and when consolidateAfter is Never.
namespace nodewright::controllers::nodeclaim::testing {
namespace {

using api::karpenter::NodePool;
using namespace std::chrono_literals;

class ConsolidatableTest : public NodeClaimEnv {
 protected:
  void putPool(const core::Duration& consolidateAfter) {
    kube::Typed<NodePool> pools(*client_);
    auto existing = pools.get("", "default");
    NodePool pool = existing ? *existing : NodePool{};
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = "default";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.disruption.consolidationPolicy = "WhenEmptyOrUnderutilized";
    pool.spec.disruption.consolidateAfter = consolidateAfter;
    auto written = existing ? pools.update(pool) : pools.create(pool);
    ASSERT_TRUE(written) << written.error().describe();
  }

  // A claim launched, registered and Initialized now.
  void initializedClaim(const std::string& name, const std::string& nodeName) {
    NodeClaim claim = launched(create(newClaim(name)).metadata.name);
    registerNode(claim, nodeName);
    setReady(nodeName, true);
    ASSERT_TRUE(awaitCondition(name, kInitialized, kTrue));
  }

  bool hasConsolidatable(const std::string& name) {
    auto claim = stored(name);
    return claim && findCondition(claim->status.conditions, kConsolidatable) != nullptr;
  }
};

TEST_F(ConsolidatableTest, FollowsConsolidateAfterSinceTheLastPodEvent) {
  putPool(core::Duration(60s));
  initializedClaim("web-1", "ip-10-0-0-1");
  EXPECT_FALSE(hasConsolidatable("web-1"));

  clock_.advance(61s);
  ASSERT_TRUE(awaitCondition("web-1", kConsolidatable, kTrue));
  EXPECT_FALSE(stored("web-1")->status.lastPodEventTime);

  // A pod arrives: a pod event now, and consolidateAfter starts again.
  runPod("app-1", "ip-10-0-0-1");
  ASSERT_TRUE(eventually([&] { return !hasConsolidatable("web-1"); }));
  auto claim = stored("web-1");
  ASSERT_TRUE(claim->status.lastPodEventTime);
  EXPECT_EQ(claim->status.lastPodEventTime->point(),
            std::chrono::time_point_cast<std::chrono::seconds>(clock_.now()));

  clock_.advance(30s);
  EXPECT_FALSE(hasConsolidatable("web-1"));
  // The pod leaves: another event, another full wait.
  finishPod("app-1");
  ASSERT_TRUE(eventually([&] {
    auto c = stored("web-1");
    return c && c->status.lastPodEventTime &&
           c->status.lastPodEventTime->point() ==
               std::chrono::time_point_cast<std::chrono::seconds>(clock_.now());
  }));
  clock_.advance(45s);
  EXPECT_FALSE(hasConsolidatable("web-1"));
  clock_.advance(16s);
  ASSERT_TRUE(awaitCondition("web-1", kConsolidatable, kTrue));

  // consolidateAfter Never: no claim of the pool is consolidatable.
  putPool(core::Duration::never());
  EXPECT_TRUE(eventually([&] { return !hasConsolidatable("web-1"); }));
}

}  // namespace
}  // namespace nodewright::controllers::nodeclaim::testing
