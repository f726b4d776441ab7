#include "controllers/nodeclass/hash_controller.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/reflect/diff.h"
#include "controllers/nodeclass/controllers.h"
#include "controllers/nodepool/controllers_env.h"
#include "controllers/nodepool/restamp.h"

// nodeclass.hash against the embedded API server: an EC2NodeClass gets its hash and version, a
// hash-version change re-stamps the claims launched from it (found by spec.nodeClassRef),
// Drifted ones with the version only, and a spec change under the same version re-stamps nothing.
namespace nodewright::controllers::nodeclass {
namespace {

using namespace controllers::testing;
using api::karpenter::kNodeClassHashAnnotation;
using api::karpenter::kNodeClassHashVersionAnnotation;
using api::karpenter::kNodeClassStaticAnnotation;
using api::karpenter::kNodePoolHashAnnotation;
using api::karpenter::nodeClassHash;

TEST(ReferencesTest, MatchesTheNamedEc2NodeClassOnly) {
  NodeClaim claim;
  claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  EXPECT_TRUE(references(claim, "default"));
  EXPECT_FALSE(references(claim, "other"));
  claim.spec.nodeClassRef = {"", "", "default"};
  EXPECT_TRUE(references(claim, "default"));
  claim.spec.nodeClassRef = {"example.com", "EC2NodeClass", "default"};
  EXPECT_FALSE(references(claim, "default"));
  claim.spec.nodeClassRef = {"karpenter.k8s.aws", "OtherNodeClass", "default"};
  EXPECT_FALSE(references(claim, "default"));
}

class NodeClassHashControllerTest : public ControllersEnv {
 protected:
  void startWith(const HashPolicy& policy) {
    start([policy](runtime::Manager& manager) -> std::shared_ptr<void> {
      Options options;
      options.hashPolicy = policy;
      return setup(manager, options);
    });
  }
  // What the provisioner stamps at launch under `policy` (a pool stamp too, which this
  // controller must not touch).
  Annotations launchStamp(const EC2NodeClass& nodeClass, const HashPolicy& policy) {
    Annotations annotations = {{kNodePoolHashAnnotation, "pool-hash"}};
    api::karpenter::stampNodeClass(nodeClass, policy, annotations);
    return annotations;
  }
  EC2NodeClass awaitStamped(const std::string& name, const HashPolicy& policy) {
    EXPECT_TRUE(eventually([&] {
      EC2NodeClass c = nodeClass(name);
      return nodepool::stamped(c.metadata.annotations,
                               {kNodeClassHashAnnotation, kNodeClassHashVersionAnnotation},
                               nodeClassHash(c, policy), policy.version);
    })) << "node class "
        << name << " never stamped at " << policy.version;
    return nodeClass(name);
  }
};

TEST_F(NodeClassHashControllerTest, AnnotatesTheNodeClassWithItsHashAndVersion) {
  const HashPolicy policy = api::karpenter::defaultHashPolicy();
  startWith(policy);
  createNodeClass("default");
  const EC2NodeClass stamped = awaitStamped("default", policy);
  EXPECT_EQ(annotation(stamped.metadata.annotations, kNodeClassHashVersionAnnotation), "nw1");
  EXPECT_EQ(annotation(stamped.metadata.annotations, kNodeClassHashAnnotation),
            nodeClassHash(stamped, policy));
}

TEST_F(NodeClassHashControllerTest, AVersionChangeRestampsClaimsAndKeepsDriftedOnesDrifted) {
  const HashPolicy old = api::karpenter::defaultHashPolicy();
  startWith(old);
  createNodeClass("default");
  createNodeClass("other");
  const EC2NodeClass launchedFrom = awaitStamped("default", old);
  const EC2NodeClass other = awaitStamped("other", old);
  createClaim("a", "pool-1", "default", launchStamp(launchedFrom, old));
  createClaim("b", "pool-2", "default", launchStamp(launchedFrom, old));
  createClaim("drifted", "pool-1", "default", launchStamp(launchedFrom, old));
  setCondition("drifted", api::karpenter::kDrifted, "True");
  createClaim("elsewhere", "pool-1", "other", launchStamp(other, old));
  const Annotations driftedBefore = claim("drifted").metadata.annotations;
  stop();

  const HashPolicy next = upgradedPolicy();
  ASSERT_NE(nodeClassHash(launchedFrom, old), nodeClassHash(launchedFrom, next));
  startWith(next);
  const EC2NodeClass nodeClass = awaitStamped("default", next);
  for (const char* name : {"a", "b"}) {
    const Annotations annotations = claim(name).metadata.annotations;
    EXPECT_EQ(annotation(annotations, kNodeClassHashAnnotation), nodeClassHash(nodeClass, next))
        << name;
    EXPECT_EQ(annotation(annotations, kNodeClassHashVersionAnnotation), "nw-next") << name;
    EXPECT_EQ(annotation(annotations, kNodeClassStaticAnnotation),
              api::dumpJson(api::staticJson(nodeClass.spec)))
        << name;
    EXPECT_EQ(annotation(annotations, kNodePoolHashAnnotation), "pool-hash") << name;
  }
  // A Drifted claim takes the new version with its old hash, so it stays drifted.
  Annotations driftedAfter = driftedBefore;
  driftedAfter[kNodeClassHashVersionAnnotation] = "nw-next";
  EXPECT_EQ(claim("drifted").metadata.annotations, driftedAfter);
  awaitStamped("other", next);
  EXPECT_EQ(annotation(claim("elsewhere").metadata.annotations, kNodeClassHashAnnotation),
            nodeClassHash(other, next));
}

TEST_F(NodeClassHashControllerTest, ASpecChangeUnderTheSameVersionRestampsNothing) {
  const HashPolicy policy = api::karpenter::defaultHashPolicy();
  startWith(policy);
  createNodeClass("default");
  const EC2NodeClass before = awaitStamped("default", policy);
  const Annotations launched = launchStamp(before, policy);
  createClaim("a", "default", "default", launched);

  mutate<EC2NodeClass>(nodeClasses_, "default", [](EC2NodeClass& c) { c.spec.tags["team"] = "b"; });
  const EC2NodeClass after = awaitStamped("default", policy);
  ASSERT_NE(nodeClassHash(after, policy), nodeClassHash(before, policy));
  EXPECT_EQ(claim("a").metadata.annotations, launched);
}

}  // namespace
}  // namespace nodewright::controllers::nodeclass
