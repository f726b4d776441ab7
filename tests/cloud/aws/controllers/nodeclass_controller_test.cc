// The EC2NodeClass controller against the embedded API server and the EC2 emulator: status
// from the seed world, no write when nothing changed, stale templates deleted after a spec
// change, and deletion held by NodeClaims, then templates and object gone.
#include "cloud/aws/controllers/nodeclass_controller.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/core/event.h"
#include "cloud/aws/controllers/nodeclass_env.h"
#include "cloud/aws/nodeclass/status.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "support/cloud/aws/provider_fixture.h"
#include "support/kube/objects.h"

namespace nodewright::cloud::aws {
namespace {

using kube::testing::eventually;
using testing::conditionOf;
using testing::discoveryNodeClass;

std::vector<std::string> subnetIds(const api::karpenter::EC2NodeClass& nc) {
  std::vector<std::string> out;
  for (const auto& s : nc.status.subnets) {
    out.push_back(s.id);
  }
  return out;
}

class NodeClassControllerTest : public testing::NodeClassEnv {
 protected:
  void SetUp() override {
    NodeClassEnv::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ASSERT_NE(controllerClient_, nullptr);
    controller_ = std::make_unique<NodeClassController>(*controllerClient_, stack_->resolver(),
                                                        stack_->launchTemplates(), nullptr);
  }
  void create(const EC2NodeClass& nodeClass) {
    auto created = nodeClasses_.create(nodeClass);
    ASSERT_TRUE(created) << created.error().describe();
  }
  // A reconcile that must succeed; its result.
  runtime::Result reconciled(const std::string& name) {
    auto outcome = reconcileOnce(*controller_, name);
    EXPECT_TRUE(outcome) << outcome.error().message();
    return outcome.value_or(runtime::Result{});
  }

  std::unique_ptr<NodeClassController> controller_;
};

TEST_F(NodeClassControllerTest, WritesReadyStatusFromTheSeedWorldAndAddsTheFinalizer) {
  create(discoveryNodeClass("default"));
  const runtime::Result result = reconciled("default");
  EXPECT_EQ(result.requeueAfter, std::chrono::seconds(60));  // the resolver's TTL

  const EC2NodeClass nc = stored("default");
  EXPECT_EQ(nc.metadata.finalizers, std::vector<std::string>{kTerminationFinalizer});
  EXPECT_EQ(subnetIds(nc),
            (std::vector<std::string>{"subnet-0e2c4a6f8b1d3000a", "subnet-0e2c4a6f8b1d3000b",
                                      "subnet-0e2c4a6f8b1d3000c"}));
  ASSERT_EQ(nc.status.securityGroups.size(), 1u);
  EXPECT_EQ(nc.status.securityGroups[0].id, "sg-0e2c4a6f8b1d30001");
  ASSERT_FALSE(nc.status.amis.empty());
  EXPECT_EQ(nc.status.amis[0].id.rfind("ami-", 0), 0u) << nc.status.amis[0].id;
  for (const char* type :
       {nodeclass::kSubnetsReady, nodeclass::kSecurityGroupsReady, nodeclass::kAMIsReady,
        nodeclass::kValidationSucceeded, nodeclass::kReady}) {
    const api::Condition c = conditionOf(nc, type);
    EXPECT_EQ(c.status, "True") << type << ": " << c.reason << " " << c.message;
    EXPECT_EQ(c.observedGeneration, nc.metadata.generation) << type;
  }
}

TEST_F(NodeClassControllerTest, SelectorsMatchingNothingGiveReadyFalseWithTheReason) {
  EC2NodeClass nc = discoveryNodeClass("nowhere");
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "nobody"}}, ""}};
  create(nc);
  EXPECT_EQ(reconciled("nowhere").requeueAfter, std::chrono::seconds(60));

  const EC2NodeClass got = stored("nowhere");
  EXPECT_TRUE(got.status.subnets.empty());
  const api::Condition subnets = conditionOf(got, nodeclass::kSubnetsReady);
  EXPECT_EQ(subnets.status, "False");
  EXPECT_EQ(subnets.reason, "SubnetsNotFound");
  EXPECT_NE(subnets.message.find("spec.subnetSelectorTerms"), std::string::npos) << subnets.message;
  const api::Condition ready = conditionOf(got, nodeclass::kReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_NE(ready.message.find("SubnetsReady=False"), std::string::npos) << ready.message;
}

TEST_F(NodeClassControllerTest, AnUnchangedReconcileWritesNothingAndReResolvesAfterTheTtl) {
  create(discoveryNodeClass("default"));
  reconciled("default");
  EXPECT_EQ(writes_.puts(), 2);  // the finalizer, then status
  const std::string written = stored("default").metadata.resourceVersion;
  const int64_t lookups = requests("DescribeSubnets");

  reconciled("default");
  EXPECT_EQ(writes_.puts(), 2);
  EXPECT_EQ(stored("default").metadata.resourceVersion, written);
  EXPECT_EQ(requests("DescribeSubnets"), lookups);  // within the TTL: the resolver's cache

  clock_.advance(std::chrono::seconds(61));
  reconciled("default");
  EXPECT_EQ(requests("DescribeSubnets"), lookups + 1);  // asked EC2 again
  EXPECT_EQ(writes_.puts(), 2);                         // the same answer: no write
  EXPECT_EQ(stored("default").metadata.resourceVersion, written);
}

TEST_F(NodeClassControllerTest, AnEc2ErrorIsReturnedAndNothingIsWritten) {
  create(discoveryNodeClass("default"));
  reconciled("default");
  const EC2NodeClass before = stored("default");

  putFaults(R"({"throttling": false, "errors": {"DescribeSubnets":
      [{"code": "InternalError", "probability": 1}]}})");
  clock_.advance(std::chrono::seconds(61));
  const int puts = writes_.puts();
  auto outcome = reconcileOnce(*controller_, "default");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(writes_.puts(), puts);
  EXPECT_NE(outcome.error().message().find("EC2NodeClass default"), std::string::npos)
      << outcome.error().message();
  const EC2NodeClass after = stored("default");
  EXPECT_EQ(after.metadata.resourceVersion, before.metadata.resourceVersion);
  EXPECT_EQ(conditionOf(after, nodeclass::kReady).status, "True");
}

TEST_F(NodeClassControllerTest, ASpecChangeDeletesThatClassesTemplatesOnly) {
  create(discoveryNodeClass("default"));
  create(discoveryNodeClass("other"));
  reconciled("default");
  reconciled("other");
  const std::string mine = ensureTemplate("default");
  const std::string theirs = ensureTemplate("other");
  ASSERT_NE(mine, theirs);  // ownership tags differ
  EXPECT_EQ(requests("CreateLaunchTemplate"), 2);

  // No spec change: nothing is deleted.
  reconciled("default");
  EXPECT_EQ(templateNames(),
            (std::vector<std::string>{std::min(mine, theirs), std::max(mine, theirs)}));

  // Narrowing the subnets changes the spec but not the template's content, so the same name
  // comes back below: only a provider that forgot it creates it again.
  auto patched =
      nodeClasses_.patch("", "default", kube::PatchType::Merge,
                         R"({"spec":{"subnetSelectorTerms":[{"id":"subnet-0e2c4a6f8b1d3000a"}]}})");
  ASSERT_TRUE(patched) << patched.error().describe();
  ASSERT_EQ(patched->metadata.generation, 2);
  reconciled("default");
  EXPECT_EQ(templateNames(), std::vector<std::string>{theirs});
  const EC2NodeClass nc = stored("default");
  EXPECT_EQ(conditionOf(nc, nodeclass::kReady).observedGeneration, 2);
  EXPECT_EQ(subnetIds(nc), std::vector<std::string>{"subnet-0e2c4a6f8b1d3000a"});

  EXPECT_EQ(ensureTemplate("default"), mine);
  EXPECT_EQ(requests("CreateLaunchTemplate"), 3);
  // Status now carries generation 2: the recreated template survives the next reconcile.
  reconciled("default");
  EXPECT_EQ(templateNames().size(), 2u);
}

// The whole loop under the manager: watches, the finalizer, the NodeClaim that holds deletion.
TEST_F(NodeClassControllerTest, DeletionWaitsForNodeClaimsThenDeletesTemplatesAndTheObject) {
  runtime::Registry metrics;
  runtime::ManagerOptions options;
  options.clock = &clock_;
  options.metrics = &metrics;
  runtime::Manager manager(*client_, options);
  NodeClassController controller(*client_, stack_->resolver(), stack_->launchTemplates(),
                                 &manager.events());
  controller.setup(manager);
  // Destroyed first: stops the manager and joins it, also when an assertion returns early.
  std::jthread run([&](std::stop_token stop) { EXPECT_TRUE(manager.run(stop)); });

  create(discoveryNodeClass("default"));
  ASSERT_TRUE(eventually(
      [&] { return conditionOf(stored("default"), nodeclass::kReady).status == "True"; }));
  const std::string lt = ensureTemplate("default");
  api::karpenter::NodeClaim nodeClaim = testing::nodeClaim("claim-1", "default", {"m5.large"});
  nodeClaim.apiVersion = "karpenter.sh/v1";
  nodeClaim.kind = "NodeClaim";
  auto claim = nodeClaims_.create(nodeClaim);
  ASSERT_TRUE(claim) << claim.error().describe();

  auto removed = nodeClasses_.remove("", "default");
  ASSERT_TRUE(removed) << removed.error().describe();
  ASSERT_TRUE(removed->has_value());  // held by the finalizer
  kube::Typed<api::corev1::Event> events(*client_);
  auto waitingEvent = [&] {
    auto all = events.list("");
    if (!all) {
      return false;
    }
    for (const auto& e : *all) {
      if (e.involvedObject.name == "default" && e.reason == kWaitingOnNodeClaims &&
          e.message.find("claim-1") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(eventually(waitingEvent));
  const EC2NodeClass held = stored("default");
  EXPECT_TRUE(held.metadata.deletionTimestamp.has_value());
  EXPECT_EQ(held.metadata.finalizers, std::vector<std::string>{kTerminationFinalizer});
  EXPECT_EQ(templateNames(), std::vector<std::string>{lt});

  // The NodeClaim's deletion alone releases the node class (no clock advance).
  auto claimGone = nodeClaims_.remove("", "claim-1");
  ASSERT_TRUE(claimGone) << claimGone.error().describe();
  EXPECT_TRUE(eventually([&] {
    auto got = nodeClasses_.get("", "default");
    return !got && got.error().is(kube::Reason::NotFound);
  }));
  EXPECT_TRUE(templateNames().empty());
}

TEST(NodeClassControllerHelpersTest, OnlyClaimsOfThisEc2NodeClassHoldIt) {
  auto claim = [](const std::string& name, const std::string& group, const std::string& kind,
                  const std::string& nodeClass) {
    api::karpenter::NodeClaim c;
    c.metadata.name = name;
    c.spec.nodeClassRef = {group, kind, nodeClass};
    return c;
  };
  const std::vector<api::karpenter::NodeClaim> claims = {
      claim("b", "karpenter.k8s.aws", "EC2NodeClass", "default"),
      claim("a", "karpenter.k8s.aws", "EC2NodeClass", "default"),
      claim("other-class", "karpenter.k8s.aws", "EC2NodeClass", "gpu"),
      claim("other-kind", "karpenter.azure.com", "AKSNodeClass", "default"),
  };
  EXPECT_EQ(claimsReferencing(claims, "default"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(claimsReferencing(claims, "none").empty());
}

}  // namespace
}  // namespace nodewright::cloud::aws
