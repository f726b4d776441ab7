#include "controllers/disruption/static_pools.h"

#include "controllers/disruption/disruption_env.h"

// Disruption of static NodePools (spec.replicas), as Karpenter's: emptiness never removes their
// nodes whatever consolidateAfter says; a drifted node is replaced one for one from the pool's
// template within the pool's budgets and limits.nodes, and not while the pool is above its
// replicas (the surplus goes first).
namespace nodewright::controllers::disruption::testing {
namespace {

void makeStatic(NodePool& pool, int64_t replicas) {
  pool.spec.replicas = replicas;
  pool.spec.disruption.consolidationPolicy = "WhenEmptyOrUnderutilized";
  pool.spec.disruption.consolidateAfter = core::Duration(0s);
}

TEST_F(DisruptionEnv, EmptyNodesOfAStaticPoolAreNeverConsolidated) {
  addPool("fixed", {}, [](NodePool& pool) { makeStatic(pool, 2); });
  addPool("dynamic", {},
          [](NodePool& pool) { pool.spec.disruption.consolidateAfter = core::Duration(0s); });
  addNode("static-a", "fixed", 0, false);
  addNode("static-b", "fixed", 0, false);
  addNode("dynamic-a", "dynamic", 0, false);
  clock_.advance(24h);
  PassReport report = pass();
  EXPECT_EQ(report.deleted, std::vector<std::string>{"dynamic-a"}) << "the dynamic one goes";
  clock_.advance(24h);
  EXPECT_TRUE(pass().started.empty());
  EXPECT_TRUE(claim("static-a"));
  EXPECT_TRUE(claim("static-b"));
}

TEST_F(DisruptionEnv, ADriftedStaticNodeIsReplacedFromTheTemplate) {
  addPool("fixed", {}, [](NodePool& pool) {
    makeStatic(pool, 2);
    pool.spec.template_.metadata.labels = {{"team", "a"}};
  });
  addNode("old", "fixed", 1, /*drifted=*/true);
  addNode("other", "fixed", 0, false);
  // Its pod would fit on "other": a dynamic pool would delete without a replacement.
  PassReport first = pass();
  ASSERT_EQ(first.started, std::vector<std::string>{"old"});
  auto started = command("old");
  ASSERT_TRUE(started);
  EXPECT_EQ(started->reason, "Drifted");
  ASSERT_EQ(started->replacements.size(), 1u);
  auto replacement = claim(started->replacements[0]);
  ASSERT_TRUE(replacement);
  EXPECT_EQ(replacement->metadata.labels.at(api::karpenter::kNodePoolLabel), "fixed");
  EXPECT_EQ(replacement->metadata.labels.at("team"), "a");
  EXPECT_TRUE(replacement->spec.resources.requests.empty()) << "not sized by the pods";
  initialize(started->replacements[0]);
  EXPECT_EQ(pass().deleted, std::vector<std::string>{"old"});
  EXPECT_EQ(claims().size(), 2u);
}

TEST_F(DisruptionEnv, StaticDriftKeepsToTheBudget) {
  api::karpenter::Budget one;
  one.nodes = "1";
  addPool("fixed", {one}, [](NodePool& pool) { makeStatic(pool, 3); });
  for (const char* name : {"a", "b", "c"}) {
    addNode(name, "fixed", 0, /*drifted=*/true);
  }
  PassReport first = pass();
  EXPECT_EQ(first.started.size(), 1u);
  EXPECT_EQ(pass().started.size(), 0u) << "one at a time while the first is replaced";
}

TEST_F(DisruptionEnv, StaticDriftStaysWithinTheNodesLimit) {
  addPool("fixed", {}, [](NodePool& pool) {
    makeStatic(pool, 2);
    pool.spec.limits["nodes"] = core::Quantity::fromInt(2);
  });
  addNode("a", "fixed", 0, /*drifted=*/true);
  addNode("b", "fixed", 0, false);
  PassReport report = pass();
  EXPECT_TRUE(report.started.empty());
  ASSERT_EQ(report.blocked.size(), 1u);
  EXPECT_NE(report.blocked[0].find("at its limit of 2 nodes"), std::string::npos)
      << report.blocked[0];
  EXPECT_EQ(claims().size(), 2u);
}

TEST_F(DisruptionEnv, StaticDriftWaitsWhileThePoolIsAboveItsReplicas) {
  addPool("fixed", {}, [](NodePool& pool) { makeStatic(pool, 1); });
  addNode("a", "fixed", 0, /*drifted=*/true);
  addNode("b", "fixed", 0, false);
  PassReport report = pass();
  EXPECT_TRUE(report.started.empty());
  ASSERT_EQ(report.blocked.size(), 1u);
  EXPECT_NE(report.blocked[0].find("has 2 nodes for 1 replicas"), std::string::npos)
      << report.blocked[0];
}

TEST_F(DisruptionEnv, PodsOfAStaticNodeDoNotMakeReplacementsInAStaticPool) {
  // A dynamic pool's drifted node with pods that fit nowhere else: the simulation may not plan
  // the replacement in the static pool.
  addPool("fixed", {}, [](NodePool& pool) { makeStatic(pool, 0); });
  addPool("dynamic");
  addNode("old", "dynamic", 2, /*drifted=*/true);
  PassReport report = pass();
  ASSERT_EQ(report.started, std::vector<std::string>{"old"});
  auto started = command("old");
  ASSERT_TRUE(started);
  for (const auto& name : started->replacements) {
    EXPECT_EQ(claim(name)->metadata.labels.at(api::karpenter::kNodePoolLabel), "dynamic");
  }
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
