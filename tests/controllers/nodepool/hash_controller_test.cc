#include "controllers/nodepool/hash_controller.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/reflect/diff.h"
#include "controllers/nodepool/controllers.h"
#include "controllers/nodepool/controllers_env.h"
#include "controllers/nodepool/restamp.h"

// nodepool.hash against the embedded API server: a NodePool gets its hash and hash version, a
// hash-version change (an upgrade) re-stamps the pool's claims so none drifts, a Drifted claim
// keeps its old hash under the new version, and a spec change under the same version re-stamps
// nothing.
namespace nodewright::controllers::nodepool {
namespace {

using namespace controllers::testing;
using api::karpenter::kNodePoolHashAnnotation;
using api::karpenter::kNodePoolHashVersionAnnotation;
using api::karpenter::kNodePoolStaticAnnotation;
using api::karpenter::nodePoolHash;

class NodePoolHashControllerTest : public ControllersEnv {
 protected:
  void startWith(const HashPolicy& policy) {
    start([policy](runtime::Manager& manager) -> std::shared_ptr<void> {
      Options options;
      options.hashPolicy = policy;
      return setup(manager, options);
    });
  }
  // What the provisioner stamps at launch under `policy`.
  Annotations launchStamp(const NodePool& pool, const HashPolicy& policy) {
    Annotations annotations;
    api::karpenter::stampNodePool(pool, policy, annotations);
    return annotations;
  }
  // Waits until the pool is annotated with its hash under `policy`; returns the pool.
  NodePool awaitStamped(const std::string& name, const HashPolicy& policy) {
    EXPECT_TRUE(eventually([&] {
      NodePool p = pool(name);
      return stamped(p.metadata.annotations,
                     {kNodePoolHashAnnotation, kNodePoolHashVersionAnnotation},
                     nodePoolHash(p, policy), policy.version);
    })) << "pool "
        << name << " never stamped at " << policy.version;
    return pool(name);
  }
};

TEST_F(NodePoolHashControllerTest, AnnotatesTheNodePoolWithItsHashAndVersion) {
  const HashPolicy policy = api::karpenter::defaultHashPolicy();
  startWith(policy);
  createPool("default");
  const NodePool stamped = awaitStamped("default", policy);
  EXPECT_EQ(annotation(stamped.metadata.annotations, kNodePoolHashVersionAnnotation), "nw1");
  EXPECT_EQ(annotation(stamped.metadata.annotations, kNodePoolHashAnnotation),
            nodePoolHash(stamped, policy));
  EXPECT_FALSE(annotation(stamped.metadata.annotations, kNodePoolHashAnnotation).empty());
}

TEST_F(NodePoolHashControllerTest, AVersionChangeRestampsClaimsAndKeepsDriftedOnesDrifted) {
  const HashPolicy old = api::karpenter::defaultHashPolicy();
  startWith(old);
  createPool("default");
  createPool("other");
  const NodePool launchedFrom = awaitStamped("default", old);
  const NodePool otherPool = awaitStamped("other", old);
  createClaim("a", "default", "default", launchStamp(launchedFrom, old));
  createClaim("b", "default", "default", launchStamp(launchedFrom, old));
  createClaim("drifted", "default", "default", launchStamp(launchedFrom, old));
  setCondition("drifted", api::karpenter::kDrifted, "True");
  // Drifted=False is no reason to keep an old stamp.
  setCondition("b", api::karpenter::kDrifted, "False");
  createClaim("elsewhere", "other", "default", launchStamp(otherPool, old));
  const Annotations driftedBefore = claim("drifted").metadata.annotations;
  const Annotations elsewhereBefore = claim("elsewhere").metadata.annotations;
  stop();

  // The upgrade: the same fleet, another hash algorithm.
  const HashPolicy next = upgradedPolicy();
  ASSERT_NE(nodePoolHash(launchedFrom, old), nodePoolHash(launchedFrom, next));
  startWith(next);
  const NodePool pool = awaitStamped("default", next);
  // Claims are re-stamped before the pool's version moves on, so this is already final.
  for (const char* name : {"a", "b"}) {
    const Annotations annotations = claim(name).metadata.annotations;
    EXPECT_EQ(annotation(annotations, kNodePoolHashAnnotation), nodePoolHash(pool, next)) << name;
    EXPECT_EQ(annotation(annotations, kNodePoolHashVersionAnnotation), "nw-next") << name;
    EXPECT_EQ(annotation(annotations, kNodePoolStaticAnnotation),
              api::dumpJson(api::staticJson(pool.spec.template_)))
        << name;
  }
  // A Drifted claim takes the new version with its old hash, so it stays drifted.
  Annotations driftedAfter = driftedBefore;
  driftedAfter[kNodePoolHashVersionAnnotation] = "nw-next";
  EXPECT_EQ(claim("drifted").metadata.annotations, driftedAfter);
  // Each pool re-stamps its own claims.
  awaitStamped("other", next);
  const Annotations elsewhere = claim("elsewhere").metadata.annotations;
  EXPECT_NE(elsewhere, elsewhereBefore);
  EXPECT_EQ(annotation(elsewhere, kNodePoolHashAnnotation), nodePoolHash(otherPool, next));
}

TEST_F(NodePoolHashControllerTest, AnAbsentVersionCountsAsChanged) {
  // Claims Karpenter stamped (its own versions), on a pool whose annotations were lost.
  Annotations karpenter = {{kNodePoolHashAnnotation, "4982684901400657622"},
                           {kNodePoolHashVersionAnnotation, "v3"}};
  createPool("default");
  createClaim("adopted", "default", "default", karpenter);
  const HashPolicy policy = api::karpenter::defaultHashPolicy();
  startWith(policy);
  const NodePool pool = awaitStamped("default", policy);
  const Annotations annotations = claim("adopted").metadata.annotations;
  EXPECT_EQ(annotation(annotations, kNodePoolHashAnnotation), nodePoolHash(pool, policy));
  EXPECT_EQ(annotation(annotations, kNodePoolHashVersionAnnotation), "nw1");
}

TEST_F(NodePoolHashControllerTest, ASpecChangeUnderTheSameVersionRestampsNothing) {
  const HashPolicy policy = api::karpenter::defaultHashPolicy();
  startWith(policy);
  createPool("default");
  const NodePool before = awaitStamped("default", policy);
  const Annotations launched = launchStamp(before, policy);
  createClaim("a", "default", "default", launched);

  mutate<NodePool>(pools_, "default",
                   [](NodePool& p) { p.spec.template_.metadata.labels["team"] = "b"; });
  const NodePool after = awaitStamped("default", policy);
  ASSERT_NE(nodePoolHash(after, policy), nodePoolHash(before, policy));
  // The pool's new hash was written after any re-stamp would have been: the claim must drift.
  EXPECT_EQ(claim("a").metadata.annotations, launched);
}

}  // namespace
}  // namespace nodewright::controllers::nodepool
