#include "controllers/nodeclaim/node_sync.h"

#include <gtest/gtest.h>

#include "controllers/nodeclaim/well_known.h"

namespace nodewright::controllers::nodeclaim {
namespace {

using api::corev1::Node;
using api::karpenter::NodeClaim;

NodeClaim claimWithStartupTaint() {
  NodeClaim claim;
  claim.metadata.name = "web-1";
  claim.metadata.uid = "uid-1";
  api::karpenter::Taint startup;
  startup.key = "example.com/agent";
  startup.effect = "NoSchedule";
  claim.spec.startupTaints = {startup};
  return claim;
}

Node readyNode() {
  Node node;
  api::corev1::NodeCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  node.status.conditions = {ready};
  return node;
}

TEST(NodeSyncTest, SecondSyncChangesNothing) {
  const NodeClaim claim = claimWithStartupTaint();
  Node node;
  EXPECT_TRUE(syncNode(node, claim));
  EXPECT_FALSE(syncNode(node, claim));
  EXPECT_EQ(node.spec.taints.size(), 1u);
  EXPECT_EQ(node.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(node.metadata.finalizers.size(), 1u);
}

TEST(NodeSyncTest, StartupTaintsOnlyAtFirstRegistration) {
  const NodeClaim claim = claimWithStartupTaint();
  Node node;
  node.metadata.labels[kRegisteredLabel] = "true";
  EXPECT_TRUE(syncNode(node, claim));
  EXPECT_TRUE(node.spec.taints.empty());
}

TEST(NodeSyncTest, KnownEphemeralTaintBlocksInitialization) {
  Node node = readyNode();
  api::corev1::Taint notReady;
  notReady.key = "node.kubernetes.io/not-ready";
  notReady.effect = "NoSchedule";
  node.spec.taints = {notReady};
  auto blocker = initializationBlocker(node, NodeClaim{});
  ASSERT_TRUE(blocker);
  EXPECT_EQ(blocker->reason, "KnownEphemeralTaintsExist");
  node.spec.taints.clear();
  EXPECT_FALSE(initializationBlocker(node, NodeClaim{}));
}

TEST(NodeSyncTest, ZeroAllocatableExtendedResourceIsNotRegistered) {
  Node node = readyNode();
  NodeClaim claim;
  claim.spec.resources.requests["vpc.amazonaws.com/efa"] = *core::Quantity::parse("1");
  node.status.allocatable["vpc.amazonaws.com/efa"] = *core::Quantity::parse("0");
  auto blocker = initializationBlocker(node, claim);
  ASSERT_TRUE(blocker);
  EXPECT_EQ(blocker->reason, "ResourceNotRegistered");
  node.status.allocatable["vpc.amazonaws.com/efa"] = *core::Quantity::parse("1");
  EXPECT_FALSE(initializationBlocker(node, claim));
}

}  // namespace
}  // namespace nodewright::controllers::nodeclaim
