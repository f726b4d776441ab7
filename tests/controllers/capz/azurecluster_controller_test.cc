#include "controllers/capz/azurecluster_controller.h"

#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "api/capi/cluster.h"
#include "api/capi/conditions.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_cluster_identity.h"
#include "api/capz/conditions.h"
#include "api/core/namespace.h"
#include "controllers/capz/arm_resource.h"
#include "controllers/capz/capz_emulator_fixture.h"
#include "kube/client.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

// The AzureCluster controller against the embedded API server and the ARM emulator, one
// reconcile at a time (what the runtime would call), so every pass's effect is observable.
namespace nodewright::controllers::capz::testing {
namespace {

namespace capz = api::capz;

constexpr const char* kSubscription = "22222222-2222-2222-2222-222222222222";
constexpr const char* kNs = "default";
constexpr const char* kName = "demo";

class AzureClusterControllerTest : public CapzEmulatorFixture {
 protected:
  void SetUp() override {
    LatencyTable latencies = medianLatencies();
    latencies["NatGateways"] = {100s, 20s};  // parked: its future goes to the status
    startEmulator(latencies);
    RunnerOptions runnerOptions;
    runner_ = std::make_unique<ServiceRunner>(*engine_, clock_, runnerOptions);
    controller_ = std::make_unique<AzureClusterController>(*kubeClient_, *runner_, *arm_, clock_);
  }

  api::capi::Cluster createCluster(bool paused = false) {
    api::capi::Cluster c;
    c.spec.paused = paused;
    c.apiVersion = "cluster.x-k8s.io/v1beta1";
    c.kind = "Cluster";
    c.metadata.name = kName;
    c.metadata.namespace_ = kNs;
    api::ObjectReference infra;
    infra.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    infra.kind = "AzureCluster";
    infra.name = kName;
    c.spec.infrastructureRef = infra;
    auto created = clusters_.create(c);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(c);
  }

  capz::AzureCluster createAzureCluster(const api::capi::Cluster* owner) {
    capz::AzureCluster c;
    c.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    c.kind = "AzureCluster";
    c.metadata.name = kName;
    c.metadata.namespace_ = kNs;
    c.spec.subscriptionID = kSubscription;
    c.spec.location = "eastus";
    api::ObjectReference identity;
    identity.kind = "AzureClusterIdentity";
    identity.name = "cluster-identity";
    identity.namespace_ = kNs;
    c.spec.identityRef = identity;
    if (owner != nullptr) {
      api::OwnerReference ref;
      ref.apiVersion = "cluster.x-k8s.io/v1beta1";
      ref.kind = "Cluster";
      ref.name = owner->metadata.name;
      ref.uid = owner->metadata.uid;
      c.metadata.ownerReferences.push_back(ref);
    }
    auto created = azureClusters_.create(c);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(c);
  }

  runtime::Outcome reconcileOnce() {
    runtime::Context context(clock_, clock_.steadyNow() + std::chrono::minutes(10),
                             std::stop_token(), spdlog::default_logger(),
                             std::string(kNs) + "/" + kName);
    return controller_->reconcile({kNs, kName}, context);
  }

  // Reconciles until the controller asks for nothing more, advancing the clock as asked.
  runtime::Outcome reconcileToEnd(int maxPasses = 20) {
    runtime::Outcome outcome = reconcileOnce();
    for (int i = 1;
         i < maxPasses && outcome && (outcome->requeue || outcome->requeueAfter.count() > 0); ++i) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(outcome->requeueAfter));
      outcome = reconcileOnce();
    }
    return outcome;
  }

  // The AzureClusterIdentity every AzureCluster here references ("cluster-identity" in kNs).
  void createIdentity(std::optional<capz::AllowedNamespaces> allowed) {
    capz::AzureClusterIdentity identity;
    identity.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    identity.kind = "AzureClusterIdentity";
    identity.metadata.name = "cluster-identity";
    identity.metadata.namespace_ = kNs;
    identity.spec.type = capz::kIdentityServicePrincipal;
    identity.spec.clientID = "11111111-1111-1111-1111-111111111111";
    identity.spec.tenantID = "33333333-3333-3333-3333-333333333333";
    identity.spec.clientSecret = {"cluster-identity-secret", kNs};
    identity.spec.allowedNamespaces = std::move(allowed);
    auto created = identities_.create(identity);
    ASSERT_TRUE(created) << created.error().describe();
  }

  void setAllowedNamespaces(std::optional<capz::AllowedNamespaces> allowed) {
    auto identity = identities_.get(kNs, "cluster-identity");
    ASSERT_TRUE(identity) << identity.error().describe();
    identity->spec.allowedNamespaces = std::move(allowed);
    auto updated = identities_.update(*identity);
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  static capz::AllowedNamespaces listOf(std::vector<std::string> names) {
    capz::AllowedNamespaces allowed;
    allowed.list = std::move(names);
    return allowed;
  }

  // The refusal CAPZ writes: NetworkInfrastructureReady and Ready False, Error severity.
  void expectRefused(const capz::AzureCluster& cluster) {
    for (const char* type : {capz::kNetworkInfrastructureReadyCondition, "Ready"}) {
      const auto* c = find(cluster.status.conditions, type);
      ASSERT_NE(c, nullptr) << type;
      EXPECT_EQ(c->status, "False") << type;
      EXPECT_EQ(c->reason, capz::kNamespaceNotAllowedByIdentityReason) << type;
      EXPECT_EQ(c->severity, api::capi::kSeverityError) << type;
    }
  }

  capz::AzureCluster stored() {
    auto got = azureClusters_.get(kNs, kName);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(capz::AzureCluster{});
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> kubeClient_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<api::capi::Cluster> clusters_{*kubeClient_};
  kube::Typed<capz::AzureCluster> azureClusters_{*kubeClient_};
  kube::Typed<capz::AzureClusterIdentity> identities_{*kubeClient_};
  kube::Typed<api::corev1::Namespace> namespaces_{*kubeClient_};
  std::unique_ptr<ServiceRunner> runner_;
  std::unique_ptr<AzureClusterController> controller_;
};

TEST_F(AzureClusterControllerTest, WaitsForTheOwnerClusterWithoutTouchingAzure) {
  createAzureCluster(nullptr);

  runtime::Outcome outcome = reconcileOnce();

  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_GT(outcome->requeueAfter.count(), 0);
  EXPECT_TRUE(stored().metadata.finalizers.empty());
  EXPECT_EQ(liveResources(), 0u);
}

TEST_F(AzureClusterControllerTest, LeavesAPausedClusterAlone) {
  api::capi::Cluster owner = createCluster(true);
  createAzureCluster(&owner);

  runtime::Outcome outcome = reconcileOnce();

  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(outcome->requeueAfter.count(), 0);
  EXPECT_TRUE(stored().metadata.finalizers.empty());
  EXPECT_EQ(liveResources(), 0u);
}

TEST_F(AzureClusterControllerTest, CreatesTheNetworkWithFuturesAndConditionsThenReady) {
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);

  runtime::Outcome first = reconcileOnce();

  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(first->inProgress);
  capz::AzureCluster afterFirst = stored();
  EXPECT_EQ(afterFirst.metadata.finalizers,
            std::vector<std::string>{"azurecluster.infrastructure.cluster.x-k8s.io"});
  EXPECT_FALSE(afterFirst.status.ready);
  // The NAT gateway outlasts the window: its operation is parked in the status.
  const auto& futures = afterFirst.status.longRunningOperationStates;
  EXPECT_TRUE(std::any_of(futures.begin(), futures.end(), [](const api::capz::Future& f) {
    return f.serviceName == "natgateways" && f.type == "PUT";
  }));
  const auto* nat = find(afterFirst.status.conditions, capz::kNATGatewaysReadyCondition);
  ASSERT_NE(nat, nullptr);
  EXPECT_EQ(nat->reason, capz::kCreatingReason);
  const auto* ready = find(afterFirst.status.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, capz::kCreatingReason);
  EXPECT_EQ(find(afterFirst.status.conditions, capz::kSubnetsReadyCondition), nullptr)
      << "subnets wait for the NAT gateway";

  runtime::Outcome last = reconcileToEnd();

  ASSERT_TRUE(last) << last.error().message();
  capz::AzureCluster done = stored();
  EXPECT_TRUE(done.status.ready);
  EXPECT_TRUE(done.status.longRunningOperationStates.empty());
  for (const auto& c : done.status.conditions) {
    EXPECT_EQ(c.status, "True") << c.type << ": " << c.message;
  }
  const auto* doneReady = find(done.status.conditions, "Ready");
  ASSERT_NE(doneReady, nullptr);
  EXPECT_EQ(doneReady->status, "True");
  EXPECT_FALSE(done.spec.controlPlaneEndpoint.host.empty()) << "the API server's public IP";
  EXPECT_EQ(done.spec.controlPlaneEndpoint.port, 6443);
}

TEST_F(AzureClusterControllerTest, DeletionDeletesTheManagedGroupThenDropsTheFinalizer) {
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);
  ASSERT_TRUE(reconcileToEnd());
  ASSERT_TRUE(stored().status.ready);
  ASSERT_GT(liveResources(), 0u);

  auto deleting = azureClusters_.remove(kNs, kName);
  ASSERT_TRUE(deleting) << deleting.error().describe();
  runtime::Outcome outcome = reconcileToEnd();

  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(liveResources(), 0u);
  auto gone = azureClusters_.get(kNs, kName);
  ASSERT_FALSE(gone);
  EXPECT_TRUE(gone.error().is(kube::Reason::NotFound));
}

TEST_F(AzureClusterControllerTest, IdentityNotAllowingTheNamespaceSetsTheConditionAndCallsNoArm) {
  createIdentity(listOf({"team-b"}));
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);

  runtime::Outcome outcome = reconcileOnce();

  ASSERT_FALSE(outcome) << "a refused identity backs off and retries";
  EXPECT_EQ(outcome.error().message(),
            "AzureClusterIdentity list of allowed namespaces doesn't include current cluster "
            "namespace");
  capz::AzureCluster refused = stored();
  expectRefused(refused);
  EXPECT_FALSE(refused.status.ready);
  EXPECT_TRUE(refused.metadata.finalizers.empty());
  EXPECT_EQ(armRequests(), 0u);
  EXPECT_EQ(liveResources(), 0u);

  // Allowing the namespace lets the retry build the network, through the counted client.
  setAllowedNamespaces(listOf({"team-b", kNs}));
  runtime::Outcome last = reconcileToEnd();

  ASSERT_TRUE(last) << last.error().message();
  capz::AzureCluster done = stored();
  EXPECT_TRUE(done.status.ready);
  EXPECT_GT(armRequests(), 0u);
  const auto* network = find(done.status.conditions, capz::kNetworkInfrastructureReadyCondition);
  ASSERT_NE(network, nullptr);
  EXPECT_EQ(network->status, "True");
}

TEST_F(AzureClusterControllerTest, IdentityWithoutAllowedNamespacesRefusesItsOwnNamespace) {
  createIdentity(std::nullopt);  // the identity lives in kNs, as the cluster does
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);

  runtime::Outcome outcome = reconcileOnce();

  ASSERT_FALSE(outcome);
  expectRefused(stored());
  EXPECT_EQ(armRequests(), 0u);
}

TEST_F(AzureClusterControllerTest, IdentitySelectorMatchesTheNamespaceLabels) {
  capz::AllowedNamespaces bySelector;
  bySelector.selector = api::LabelSelector{};
  bySelector.selector->matchLabels = {{"capz", "allowed"}};
  createIdentity(bySelector);
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);

  ASSERT_FALSE(reconcileOnce()) << "the namespace does not carry the label yet";
  EXPECT_EQ(armRequests(), 0u);

  auto ns = namespaces_.get("", kNs);
  ASSERT_TRUE(ns) << ns.error().describe();
  ns->metadata.labels["capz"] = "allowed";
  auto labelled = namespaces_.update(*ns);
  ASSERT_TRUE(labelled) << labelled.error().describe();
  runtime::Outcome outcome = reconcileOnce();

  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_GT(armRequests(), 0u);
}

TEST_F(AzureClusterControllerTest, IdentityNarrowedAfterCreateBlocksDeleteWithoutCallingArm) {
  capz::AllowedNamespaces all;
  createIdentity(all);
  api::capi::Cluster owner = createCluster();
  createAzureCluster(&owner);
  ASSERT_TRUE(reconcileToEnd());
  ASSERT_TRUE(stored().status.ready);
  const size_t live = liveResources();
  ASSERT_GT(live, 0u);

  setAllowedNamespaces(listOf({"team-b"}));
  auto deleting = azureClusters_.remove(kNs, kName);
  ASSERT_TRUE(deleting) << deleting.error().describe();
  const size_t before = armRequests();
  runtime::Outcome outcome = reconcileOnce();

  ASSERT_FALSE(outcome);
  EXPECT_EQ(armRequests(), before);
  EXPECT_EQ(liveResources(), live);
  capz::AzureCluster kept = stored();
  expectRefused(kept);
  EXPECT_EQ(kept.metadata.finalizers,
            std::vector<std::string>{"azurecluster.infrastructure.cluster.x-k8s.io"});
}

}  // namespace
}  // namespace nodewright::controllers::capz::testing
