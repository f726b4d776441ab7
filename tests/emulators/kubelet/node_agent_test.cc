// The node agent against the embedded API server and the project's EC2 emulator through the
// AWS provider: Nodes registered for launched machines, Ready after the delay on the fake
// clock, startup taints cleared after Karpenter's registration, Nodes and pods collected when
// machines go.
#include <gtest/gtest.h>

#include "emulators/kubelet/agent_fixture.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

class NodeAgentTest : public AgentTest {
 protected:
  void SetUp() override {
    start();
    nodeClasses_["default"] = cloud::aws::testing::discoveryNodeClass("default");
  }

  static api::karpenter::Taint claimTaint(const std::string& key, const std::string& value,
                                          const std::string& effect) {
    api::karpenter::Taint t;
    t.key = key;
    t.value = value;
    t.effect = effect;
    return t;
  }
};

TEST_F(NodeAgentTest, RegistersANodeWithTheMachinesIdentityCapacityAndUnregisteredTaint) {
  startAgent();
  const cloud::Machine machine = launch("claim-a", "default", {"m5.large"});
  ASSERT_FALSE(machine.providerID.empty());

  auto node = awaitNode(machine);
  ASSERT_TRUE(node);
  const std::string name = nodeNameOf(machine.providerID);
  EXPECT_TRUE(name.starts_with("i-")) << name;
  EXPECT_EQ(node->spec.providerID, machine.providerID);
  const auto& labels = node->metadata.labels;
  EXPECT_EQ(labels.at("node.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(labels.at("topology.kubernetes.io/zone"), machine.zone);
  EXPECT_EQ(labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(labels.at("kubernetes.io/hostname"), name);
  EXPECT_EQ(labels.at("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(labels.at("kubernetes.io/os"), "linux");
  EXPECT_EQ(node->status.capacity, machine.capacity);
  EXPECT_EQ(node->status.allocatable, machine.allocatable);
  EXPECT_EQ(node->status.capacity.at("cpu"), q("2"));
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].key, "karpenter.sh/unregistered");
  EXPECT_EQ(node->spec.taints[0].effect, "NoExecute");
  EXPECT_FALSE(isNodeReady(*node));
  EXPECT_FALSE(internalIp(*node).empty());
  EXPECT_EQ(node->status.nodeInfo.kubeletVersion, "v1.31.0");
  EXPECT_EQ(node->status.nodeInfo.architecture, "amd64");
}

TEST_F(NodeAgentTest, BecomesReadyOnlyAfterTheReadyDelay) {
  options_.readyDelay = std::chrono::seconds(2);
  startAgent();
  auto node = awaitNode(launch("claim-a", "default", {"m5.large"}));
  ASSERT_TRUE(node);
  const auto* notReady = api::corev1::findCondition(node->status, "Ready");
  ASSERT_NE(notReady, nullptr);
  ASSERT_EQ(notReady->status, "False");
  const core::TimePoint registered = notReady->lastTransitionTime.point();

  // The agent saw the Node and chose to wait, the clock short of the delay.
  ASSERT_TRUE(kube::testing::eventually(
      [&] { return cluster_.reconciles("nodeagent-nodes", "requeue_after") >= 1; }));
  ASSERT_LT(cluster_.clock.now(), registered + std::chrono::seconds(2));
  EXPECT_FALSE(isNodeReady(*cluster_.node(node->metadata.name)));

  cluster_.clock.advance(std::chrono::duration_cast<std::chrono::microseconds>(
      registered + std::chrono::seconds(2) - cluster_.clock.now()));
  ASSERT_TRUE(
      kube::testing::eventually([&] { return isNodeReady(*cluster_.node(node->metadata.name)); }));
  auto ready = cluster_.node(node->metadata.name);
  const auto* condition = api::corev1::findCondition(ready->status, "Ready");
  EXPECT_EQ(condition->reason, "KubeletReady");
  EXPECT_GE(condition->lastTransitionTime.point(), registered + std::chrono::seconds(2));
  EXPECT_GE(condition->lastHeartbeatTime.point(), registered + std::chrono::seconds(2));
}

TEST_F(NodeAgentTest, RemovesStartupTaintsAfterKarpenterRegisteredTheNode) {
  options_.startupTaintDelay = std::chrono::seconds(1);
  startAgent();
  const cloud::Machine machine =
      launch("claim-a", "default", {"m5.large"},
             {claimTaint("example.com/agent-not-ready", "true", "NoExecute")},
             {claimTaint("dedicated", "infra", "NoSchedule")});
  auto node = awaitNode(machine);
  ASSERT_TRUE(node);
  const std::string name = node->metadata.name;

  registerAsKarpenter(name, "claim-a");
  const core::TimePoint registered = cluster_.clock.now();
  auto hasStartupTaint = [&] {
    auto current = cluster_.node(name);
    return std::any_of(current->spec.taints.begin(), current->spec.taints.end(),
                       [](const auto& t) { return t.key == "example.com/agent-not-ready"; });
  };
  ASSERT_TRUE(
      cluster_.advanceUntil([&] { return !hasStartupTaint(); }, std::chrono::milliseconds(50)));
  EXPECT_GE(cluster_.clock.now(), registered + std::chrono::seconds(1));
  auto done = cluster_.node(name);
  ASSERT_EQ(done->spec.taints.size(), 1u);
  EXPECT_EQ(done->spec.taints[0], taint("dedicated", "infra", "NoSchedule"));
}

TEST_F(NodeAgentTest, DeletesTheNodeAndCollectsItsPodsOnceTheMachineIsTerminated) {
  startAgent();
  const cloud::Machine machine = launch("claim-a", "default", {"m5.large"});
  auto node = awaitNode(machine);
  ASSERT_TRUE(node);
  const std::string name = node->metadata.name;
  // A finalizer holds the Node (Karpenter's termination): deleted, it waits for it.
  ASSERT_TRUE(cluster_.updateNode(
      name, [](Node& n) { n.metadata.finalizers = {"karpenter.sh/termination"}; }));
  Pod bound = pendingPod("bound", "100m");
  bound.spec.nodeName = name;
  ASSERT_TRUE(cluster_.pods.create(bound));

  ASSERT_TRUE(provider().remove(machine.providerID));
  ASSERT_TRUE(cluster_.advanceUntil(
      [&] { return cluster_.node(name)->metadata.deletionTimestamp.has_value(); }));
  ASSERT_TRUE(cluster_.updateNode(name, [](Node& n) { n.metadata.finalizers.clear(); }));
  ASSERT_TRUE(cluster_.advanceUntil([&] { return !cluster_.node(name); }));
  ASSERT_TRUE(cluster_.advanceUntil([&] { return !cluster_.pod("bound"); }));
}

// Karpenter deletes the Node before it terminates the instance; a kubelet does not register
// again, so neither does the agent.
TEST_F(NodeAgentTest, DoesNotBringBackANodeDeletedWhileItsMachineRuns) {
  startAgent();
  auto node = awaitNode(launch("claim-a", "default", {"m5.large"}));
  ASSERT_TRUE(node);
  ASSERT_TRUE(cluster_.nodes.remove("", node->metadata.name));
  const double polls = cluster_.reconciles("nodeagent-machines", "requeue_after");
  ASSERT_TRUE(cluster_.advanceUntil(
      [&] { return cluster_.reconciles("nodeagent-machines", "requeue_after") >= polls + 3; }));
  EXPECT_FALSE(cluster_.node(node->metadata.name));
}

TEST_F(NodeAgentTest, CollectsPodsBoundToNodesThatDoNotExist) {
  startAgent();
  ASSERT_TRUE(cluster_.nodes.create(readyNode("bystander", "4", "8Gi", 110)));
  Pod ghost = pendingPod("ghost", "100m");
  ghost.spec.nodeName = "i-0000000000gone";
  ASSERT_TRUE(cluster_.pods.create(ghost));
  Pod other = pendingPod("other", "100m");
  other.spec.nodeName = "bystander";
  ASSERT_TRUE(cluster_.pods.create(other));

  ASSERT_TRUE(cluster_.advanceUntil([&] { return !cluster_.pod("ghost"); }));
  // A Node the agent did not register is not its kubelet's: the pod stays as it was.
  auto kept = cluster_.pod("other");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->status.phase, "Pending");
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
