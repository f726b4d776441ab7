#include <gtest/gtest.h>

#include <algorithm>

#include "controllers/nodeclaim/nodeclaim_env.h"

namespace nodewright::controllers::nodeclaim::testing {
namespace {

using LifecycleTest = NodeClaimEnv;

bool hasTaint(const Node& node, const std::string& key) {
  return std::any_of(node.spec.taints.begin(), node.spec.taints.end(),
                     [&](const api::corev1::Taint& t) { return t.key == key; });
}

api::karpenter::Taint taint(const std::string& key, const std::string& value) {
  api::karpenter::Taint t;
  t.key = key;
  t.value = value;
  t.effect = "NoSchedule";
  return t;
}

TEST_F(LifecycleTest, LaunchWritesMachineToStatusAndLabels) {
  create(newClaim("web-1"));
  const NodeClaim claim = launched("web-1");

  EXPECT_EQ(claim.status.providerID, "fake:///zone-a/i-1");
  EXPECT_EQ(claim.status.imageID, "ami-0123");
  EXPECT_EQ(claim.status.capacity.at("cpu").toString(), "2");
  EXPECT_EQ(claim.status.allocatable.at("memory").toString(), "7Gi");
  EXPECT_EQ(claim.metadata.labels.at("node.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(claim.metadata.labels.at("topology.kubernetes.io/zone"), "zone-a");
  EXPECT_EQ(claim.metadata.labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(claim.metadata.labels.at("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(claim.metadata.finalizers, std::vector<std::string>{kTerminationFinalizer});
  EXPECT_EQ(condition("web-1", kLaunched).reason, "Launched");
  EXPECT_TRUE(awaitCondition("web-1", kRegistered, kUnknown, "NodeNotFound"));
  EXPECT_EQ(condition("web-1", kReady).status, kUnknown);
  EXPECT_EQ(condition("web-1", kLaunched).lastTransitionTime.point(),
            std::chrono::floor<std::chrono::seconds>(clock_.now()));
  EXPECT_EQ(cloud_.count("create"), 1);
  EXPECT_TRUE(eventually([&] { return poolCounter("karpenter_nodeclaims_launched_total") == 1; }));
  EXPECT_EQ(cloud_.running(), 1u);
}

TEST_F(LifecycleTest, InsufficientCapacityDeletesTheClaim) {
  cloud_.failCreate({core::Code::InsufficientCapacity, "no m5.large in zone-a"});
  create(newClaim("web-1"));

  ASSERT_TRUE(gone("web-1"));
  EXPECT_EQ(cloud_.calls(), std::vector<std::string>{"create web-1"});
  EXPECT_EQ(cloud_.running(), 0u);
  auto reasons = eventReasons("web-1");
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "InsufficientCapacityError"), 1);
}

TEST_F(LifecycleTest, InvalidNodeClassIsLaunchedFalseAndBacksOff) {
  cloud_.failCreate({core::Code::Invalid, "EC2NodeClass default is not ready"}, /*sticky=*/true);
  // Created with its finalizer, so the only writes are the controller's status writes.
  NodeClaim claim = newClaim("web-1");
  claim.metadata.finalizers = {kTerminationFinalizer};
  create(claim);

  ASSERT_TRUE(awaitCondition("web-1", kLaunched, kFalse, "LaunchFailed"));
  EXPECT_EQ(condition("web-1", kLaunched).message, "EC2NodeClass default is not ready");
  EXPECT_EQ(condition("web-1", kReady).status, kFalse);
  // The failed attempt, then the one its own status write triggered; the next waits for the
  // backoff, which only the clock ends.
  ASSERT_TRUE(eventually([&] { return cloud_.count("create") == 2; }));
  EXPECT_FALSE(stored("web-1")->metadata.deletionTimestamp);

  cloud_.clearCreateError();
  clock_.advance(std::chrono::seconds(1));
  ASSERT_TRUE(awaitCondition("web-1", kLaunched, kTrue));
  EXPECT_EQ(cloud_.count("create"), 3);
  EXPECT_EQ(cloud_.running(), 1u);
}

TEST_F(LifecycleTest, RegistrationSyncsTheNodeAndLiftsTheUnregisteredTaint) {
  NodeClaim claim = newClaim("web-1");
  claim.metadata.labels["team"] = "payments";
  claim.spec.taints = {taint("dedicated", "payments")};
  claim.spec.startupTaints = {taint("example.com/agent-not-ready", "")};
  const NodeClaim created = create(claim);
  const NodeClaim running = launched("web-1");
  registerNode(running, "ip-10-0-0-1");

  ASSERT_TRUE(awaitCondition("web-1", kRegistered, kTrue));
  const Node synced = *node("ip-10-0-0-1");
  EXPECT_EQ(synced.metadata.labels.at(kNodePoolLabel), "default");
  EXPECT_EQ(synced.metadata.labels.at(kRegisteredLabel), "true");
  EXPECT_EQ(synced.metadata.labels.at("team"), "payments");
  EXPECT_EQ(synced.metadata.labels.at("node.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(synced.metadata.labels.at("kubernetes.io/hostname"), "ip-10-0-0-1");
  EXPECT_FALSE(hasTaint(synced, kUnregisteredTaintKey));
  EXPECT_TRUE(hasTaint(synced, "dedicated"));
  EXPECT_TRUE(hasTaint(synced, "example.com/agent-not-ready"));
  EXPECT_EQ(synced.spec.taints.size(), 2u);
  ASSERT_EQ(synced.metadata.ownerReferences.size(), 1u);
  const api::OwnerReference& owner = synced.metadata.ownerReferences.front();
  EXPECT_EQ(owner.kind, "NodeClaim");
  EXPECT_EQ(owner.name, "web-1");
  EXPECT_EQ(owner.uid, created.metadata.uid);
  EXPECT_EQ(owner.controller, true);
  EXPECT_EQ(synced.metadata.finalizers, std::vector<std::string>{kTerminationFinalizer});
  EXPECT_EQ(stored("web-1")->status.nodeName, "ip-10-0-0-1");
  EXPECT_TRUE(
      eventually([&] { return poolCounter("karpenter_nodeclaims_registered_total") == 1; }));

  // A startup taint lifted by its agent is not put back by a later sync.
  mutateNode("ip-10-0-0-1", [](Node& n) {
    std::erase_if(n.spec.taints, [](const auto& t) { return t.key != "dedicated"; });
    n.metadata.labels["kubelet"] = "touched";
  });
  setReady("ip-10-0-0-1", true);
  ASSERT_TRUE(awaitCondition("web-1", kInitialized, kTrue));
  EXPECT_FALSE(hasTaint(*node("ip-10-0-0-1"), "example.com/agent-not-ready"));
}

TEST_F(LifecycleTest, InitializationWaitsForReadyStartupTaintsAndExtendedResources) {
  cloud_.setExtraCapacity("nvidia.com/gpu", "1");
  NodeClaim claim = newClaim("gpu-1");
  claim.spec.startupTaints = {taint("example.com/agent-not-ready", "")};
  create(claim);
  registerNode(launched("gpu-1"), "ip-10-0-0-2");

  ASSERT_TRUE(awaitCondition("gpu-1", kInitialized, kUnknown, "NodeNotReady"));
  setReady("ip-10-0-0-2", true);
  ASSERT_TRUE(awaitCondition("gpu-1", kInitialized, kUnknown, "StartupTaintsExist"));
  EXPECT_EQ(condition("gpu-1", kInitialized).message,
            "StartupTaint \"example.com/agent-not-ready:NoSchedule\" still exists");
  mutateNode("ip-10-0-0-2", [](Node& n) { n.spec.taints.clear(); });
  ASSERT_TRUE(awaitCondition("gpu-1", kInitialized, kUnknown, "ResourceNotRegistered"));
  EXPECT_EQ(condition("gpu-1", kInitialized).message,
            "Resource \"nvidia.com/gpu\" was requested but not registered");
  EXPECT_FALSE(node("ip-10-0-0-2")->metadata.labels.contains(kInitializedLabel));
  EXPECT_EQ(condition("gpu-1", kReady).status, kUnknown);

  mutateNode(
      "ip-10-0-0-2",
      [](Node& n) { n.status.allocatable["nvidia.com/gpu"] = *core::Quantity::parse("1"); }, true);
  ASSERT_TRUE(awaitCondition("gpu-1", kReady, kTrue));
  EXPECT_EQ(condition("gpu-1", kInitialized).status, kTrue);
  EXPECT_EQ(node("ip-10-0-0-2")->metadata.labels.at(kInitializedLabel), "true");
  EXPECT_TRUE(
      eventually([&] { return poolCounter("karpenter_nodeclaims_initialized_total") == 1; }));
}

TEST_F(LifecycleTest, RegistrationTimeoutDeletesTheClaimAndTerminatesTheMachine) {
  cloud_.setAutoTerminate(true);
  create(newClaim("web-1"));
  const std::string providerID = launched("web-1").status.providerID;

  clock_.advance(std::chrono::minutes(14));
  // Still within the TTL: the claim lives (its requeue is due at 15 minutes).
  EXPECT_FALSE(stored("web-1")->metadata.deletionTimestamp);
  EXPECT_EQ(cloud_.count("remove"), 0);
  clock_.advance(std::chrono::minutes(1) + std::chrono::seconds(1));

  ASSERT_TRUE(gone("web-1"));
  EXPECT_FALSE(cloud_.machine(providerID));
  EXPECT_EQ(cloud_.count("remove"), 1);
  EXPECT_EQ(cloud_.count("create"), 1);
  auto reasons = eventReasons("web-1");
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "RegistrationTimeout"), 1);
  EXPECT_TRUE(
      eventually([&] { return poolCounter("karpenter_nodeclaims_terminated_total") == 1; }));
}

TEST_F(LifecycleTest, DeletedNodeDeletesItsClaimWhichTerminatesTheMachine) {
  cloud_.setAutoTerminate(true);
  create(newClaim("web-1"));
  const std::string providerID = launched("web-1").status.providerID;
  registerNode(stored("web-1").value(), "ip-10-0-0-3");
  ASSERT_TRUE(awaitCondition("web-1", kRegistered, kTrue));

  // kubectl delete node: the finalizer holds it until the machine is gone.
  auto deleted = nodes_.remove("", "ip-10-0-0-3");
  ASSERT_TRUE(deleted) << deleted.error().describe();
  ASSERT_TRUE(gone("web-1"));
  EXPECT_TRUE(eventually([&] { return !node("ip-10-0-0-3"); }));
  EXPECT_FALSE(cloud_.machine(providerID));
  EXPECT_EQ(cloud_.count("remove"), 1);
}

TEST_F(LifecycleTest, NeverLaunchedClaimOnlyLosesItsFinalizer) {
  cloud_.failCreate({core::Code::Invalid, "no subnets"}, /*sticky=*/true);
  create(newClaim("web-1"));
  ASSERT_TRUE(awaitCondition("web-1", kLaunched, kFalse));

  ASSERT_TRUE(claims_.remove("", "web-1"));
  ASSERT_TRUE(gone("web-1"));
  EXPECT_EQ(cloud_.count("remove"), 0);
  EXPECT_EQ(cloud_.count("get"), 0);
}

}  // namespace
}  // namespace nodewright::controllers::nodeclaim::testing
