#include "controllers/garbagecollection/garbage_collector.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::garbagecollection {
namespace {

using api::karpenter::NodeClaim;
using namespace std::chrono_literals;

class GarbageCollectorTest : public ::testing::Test {
 protected:
  // A NodeClaim stored in the API server and in the cache the collector reads.
  NodeClaim storeClaim(const std::string& name, const std::string& providerID, bool launched) {
    NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    auto created = claims_.create(claim);
    EXPECT_TRUE(created) << created.error().describe();
    NodeClaim stored = created.value_or(claim);
    stored.status.providerID = providerID;
    if (launched) {
      api::Condition c;
      c.type = "Launched";
      c.status = "True";
      c.lastTransitionTime = core::Time(clock_.now());
      stored.status.conditions.push_back(c);
    }
    cache_.upsert(api::Object(&claims_.kind(), std::make_shared<NodeClaim>(stored)));
    return stored;
  }

  cloud::Machine machine(const std::string& providerID, const std::string& claim,
                         core::TimePoint launched) {
    cloud::Machine m;
    m.providerID = providerID;
    m.nodeClaimName = claim;
    m.state = "running";
    m.launchTime = launched;
    return m;
  }

  CollectionSummary collect() {
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                             GarbageCollector::kName);
    auto summary = collector_.collect(cache_, context);
    EXPECT_TRUE(summary) << summary.error().message();
    return summary.value_or(CollectionSummary{});
  }

  bool claimExists(const std::string& name) { return claims_.get("", name).has_value(); }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<NodeClaim> claims_{*client_};
  core::FakeClock clock_;
  cloud::testing::FakeCloudProvider cloud_;
  runtime::Registry metrics_;
  GarbageCollectorOptions options_{std::chrono::seconds(60), std::chrono::seconds(30)};
  GarbageCollector collector_{*client_, cloud_, clock_, metrics_, options_};
  kube::Cache cache_;
};

TEST_F(GarbageCollectorTest, AMachineNoNodeClaimAccountsForIsTerminatedAfterTheGrace) {
  storeClaim("known", "fake:///zone-a/i-1", true);
  cloud_.addMachine(machine("fake:///zone-a/i-1", "known", clock_.now()));
  // Launched for a claim whose status write was lost: the tag still names a live claim.
  storeClaim("unwritten", "", false);
  cloud_.addMachine(machine("fake:///zone-a/i-2", "unwritten", clock_.now()));
  // Its claim is gone.
  cloud_.addMachine(machine("fake:///zone-a/i-3", "lost", clock_.now()));

  EXPECT_TRUE(collect().terminatedMachines.empty()) << "a young machine must be left alone";
  clock_.advance(31s);
  const auto summary = collect();
  EXPECT_EQ(summary.terminatedMachines, std::vector<std::string>{"fake:///zone-a/i-3"});
  EXPECT_EQ(cloud_.count("remove"), 1);
  EXPECT_EQ(cloud_.machine("fake:///zone-a/i-3")->state, "shutting-down");
  EXPECT_EQ(cloud_.machine("fake:///zone-a/i-1")->state, "running");
  EXPECT_EQ(cloud_.machine("fake:///zone-a/i-2")->state, "running");
}

TEST_F(GarbageCollectorTest, ALaunchedNodeClaimWhoseMachineIsGoneIsDeleted) {
  storeClaim("orphaned", "fake:///zone-a/i-9", true);
  storeClaim("launching", "", false);
  clock_.advance(31s);
  const auto summary = collect();
  EXPECT_EQ(summary.deletedNodeClaims, std::vector<std::string>{"orphaned"});
  EXPECT_FALSE(claimExists("orphaned"));
  EXPECT_TRUE(claimExists("launching"));
  // The cloud was asked about the machine itself, not trusted from list() alone.
  EXPECT_EQ(cloud_.count("get"), 1);
}

TEST_F(GarbageCollectorTest, AMachineStillListedKeepsItsNodeClaim) {
  storeClaim("alive", "fake:///zone-a/i-5", true);
  cloud_.addMachine(machine("fake:///zone-a/i-5", "alive", clock_.now()));
  clock_.advance(5min);
  const auto summary = collect();
  EXPECT_TRUE(summary.deletedNodeClaims.empty());
  EXPECT_TRUE(summary.terminatedMachines.empty());
  EXPECT_TRUE(claimExists("alive"));
}

}  // namespace
}  // namespace nodewright::controllers::garbagecollection
