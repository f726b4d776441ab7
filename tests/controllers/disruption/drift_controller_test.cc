#include "controllers/disruption/drift_controller.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/karpenter/well_known.h"
#include "controllers/nodeclaim/conditions.h"
#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// The drift controller in a Manager against the embedded API server, with a fake cloud whose
// checks the test sets: the Drifted condition comes and goes with the checks, names the first
// failing one, and stays as it is while the cloud cannot be asked or the claim waits for a
// re-stamp under a new hash version.
namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using kube::testing::eventually;
using namespace std::chrono_literals;

constexpr const char* kProvider = "fake:///zone-a/i-1";

class DriftControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime::ManagerOptions options;
    options.metrics = &metrics_;
    manager_ = std::make_unique<runtime::Manager>(*client_, options);
    DriftOptions drift;
    drift.recheck = 1s;
    controller_ = std::make_unique<DriftController>(*client_, cloud_, core::systemClock(), nullptr,
                                                    metrics_, drift);
    controller_->setup(*manager_, {});
    runner_ = std::jthread([this](std::stop_token stop) { (void)manager_->run(stop); });
    ASSERT_TRUE(eventually([this] { return manager_->cachesSynced(); }));

    NodePool pool;
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = "default";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    ASSERT_TRUE(kube::Typed<NodePool>(*client_).create(pool));
  }
  void TearDown() override {
    runner_.request_stop();
    runner_.join();
  }

  // A launched claim stamped from the pool as it is now.
  void launch(const api::karpenter::HashPolicy& policy = api::karpenter::defaultHashPolicy()) {
    auto pool = kube::Typed<NodePool>(*client_).get("", "default");
    ASSERT_TRUE(pool);
    NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = "claim";
    claim.metadata.labels = {{api::karpenter::kNodePoolLabel, "default"}};
    api::karpenter::stampNodePool(*pool, policy, claim.metadata.annotations);
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    auto created = kube::Typed<NodeClaim>(*client_).create(claim);
    ASSERT_TRUE(created);
    created->status.providerID = kProvider;
    nodeclaim::setCondition(created->status.conditions, api::karpenter::kLaunched, "True",
                            "Launched", "", 1, core::systemClock().now());
    ASSERT_TRUE(kube::Typed<NodeClaim>(*client_).updateStatus(*created));
  }

  std::optional<api::Condition> drifted() {
    auto claim = kube::Typed<NodeClaim>(*client_).get("", "claim");
    const auto* c =
        claim ? nodeclaim::findCondition(claim->status.conditions, api::karpenter::kDrifted)
              : nullptr;
    return c ? std::optional(*c) : std::nullopt;
  }

  static cloud::DriftCheck subnetDrift() {
    cloud::DriftCheck check;
    check.name = "Subnet";
    check.drifted = true;
    check.reason = "SubnetDrifted";
    check.detail = "subnet-1 is not among the resolved subnets subnet-2";
    return check;
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  runtime::Registry metrics_;
  cloud::testing::FakeCloudProvider cloud_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<DriftController> controller_;
  std::jthread runner_;
};

TEST_F(DriftControllerTest, TheConditionNamesTheFirstFailingCheckAndGoesWhenItPasses) {
  cloud_.setDrift(kProvider, {subnetDrift()});
  launch();
  ASSERT_TRUE(eventually([&] { return drifted().has_value(); }));
  EXPECT_EQ(drifted()->status, "True");
  EXPECT_EQ(drifted()->reason, "SubnetDrifted");
  EXPECT_EQ(drifted()->message, "Subnet: subnet-1 is not among the resolved subnets subnet-2");

  cloud_.clearDrift(kProvider);  // the subnet is back; the recheck sees it
  EXPECT_TRUE(eventually([&] { return !drifted().has_value(); }));
}

TEST_F(DriftControllerTest, ANodePoolChangeComesBeforeTheCloudsChecks) {
  cloud_.setDrift(kProvider, {subnetDrift()});
  launch();
  ASSERT_TRUE(eventually([&] { return drifted().has_value(); }));
  auto pool = kube::Typed<NodePool>(*client_).get("", "default");
  ASSERT_TRUE(pool);
  pool->spec.template_.metadata.labels["team"] = "payments";
  ASSERT_TRUE(kube::Typed<NodePool>(*client_).update(*pool));
  ASSERT_TRUE(eventually([&] { return drifted() && drifted()->reason == "NodePoolDrifted"; }));
  EXPECT_EQ(drifted()->message,
            "NodePool: spec.template.metadata.labels[team]: <absent> -> \"payments\"");
}

TEST_F(DriftControllerTest, ACloudErrorLeavesTheConditionAsItIs) {
  cloud_.setDrift(kProvider, {subnetDrift()});
  launch();
  ASSERT_TRUE(eventually([&] { return drifted().has_value(); }));
  // The next check fails: it writes nothing and is retried, and the retry clears the condition.
  cloud_.failDrift(core::Error::internal("EC2 unreachable"));
  cloud_.clearDrift(kProvider);
  const auto before = cloud_.calls().size();
  EXPECT_TRUE(eventually([&] { return !drifted().has_value(); }));
  EXPECT_GE(cloud_.calls().size(), before + 2) << "cleared without asking the cloud again";
}

TEST_F(DriftControllerTest, AClaimAwaitingARestampKeepsItsCondition) {
  cloud_.setDrift(kProvider, {subnetDrift()});
  launch(api::karpenter::HashPolicy{"nw0", 3});  // stamped by an older build
  ASSERT_TRUE(eventually([&] { return drifted().has_value(); }));
  // The cloud's drift goes, but the pool's hash cannot be compared across versions: the
  // condition found earlier stays until the claim is re-stamped.
  cloud_.clearDrift(kProvider);
  auto before = cloud_.calls().size();
  ASSERT_TRUE(eventually([&] { return cloud_.calls().size() >= before + 2; }, 10s));
  EXPECT_TRUE(drifted().has_value());
}

}  // namespace
}  // namespace nodewright::controllers::disruption
