#include "controllers/provisioning/pending_pods.h"

#include <gtest/gtest.h>

namespace nodewright::controllers::provisioning {
namespace {

using api::corev1::Pod;

Pod unschedulablePod() {
  Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "default";
  pod.status.phase = "Pending";
  api::corev1::PodCondition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = "False";
  scheduled.reason = "Unschedulable";
  pod.status.conditions.push_back(scheduled);
  return pod;
}

TEST(PendingPodsTest, AnUnschedulablePodIsProvisionableUnderBothRules) {
  EXPECT_TRUE(isProvisionable(unschedulablePod(), PendingRule::Unschedulable));
  EXPECT_TRUE(isProvisionable(unschedulablePod(), PendingRule::Unbound));
}

TEST(PendingPodsTest, AFreshUnboundPodWaitsForTheSchedulerUnlessEmbedded) {
  Pod pod = unschedulablePod();
  pod.status.conditions.clear();
  EXPECT_FALSE(isProvisionable(pod, PendingRule::Unschedulable));
  EXPECT_TRUE(isProvisionable(pod, PendingRule::Unbound));
}

TEST(PendingPodsTest, BoundTerminatingFinishedAndForeignPodsAreNot) {
  Pod bound = unschedulablePod();
  bound.spec.nodeName = "node-1";
  Pod deleting = unschedulablePod();
  deleting.metadata.deletionTimestamp = core::Time();
  Pod done = unschedulablePod();
  done.status.phase = "Succeeded";
  Pod foreign = unschedulablePod();
  foreign.spec.schedulerName = "volcano";
  for (const Pod& pod : {bound, deleting, done, foreign}) {
    EXPECT_FALSE(isProvisionable(pod, PendingRule::Unbound)) << pod.status.phase;
  }
  Pod named = unschedulablePod();
  named.spec.schedulerName = "default-scheduler";
  EXPECT_TRUE(isProvisionable(named, PendingRule::Unschedulable));
}

TEST(PendingPodsTest, APodWaitingOnAPreemptionGetsNoNode) {
  Pod pod = unschedulablePod();
  pod.status.nominatedNodeName = "node-1";
  EXPECT_FALSE(isProvisionable(pod, PendingRule::Unschedulable));
  EXPECT_FALSE(isProvisionable(pod, PendingRule::Unbound));
}

TEST(PendingPodsTest, DaemonSetPodsAreLeftToTheirController) {
  Pod pod = unschedulablePod();
  api::OwnerReference owner;
  owner.kind = "DaemonSet";
  owner.name = "cilium";
  owner.controller = true;
  pod.metadata.ownerReferences.push_back(owner);
  EXPECT_TRUE(isDaemonSetPod(pod));
  EXPECT_FALSE(isProvisionable(pod, PendingRule::Unbound));
  pod.metadata.ownerReferences[0].controller = false;
  EXPECT_FALSE(isDaemonSetPod(pod));
}

TEST(PendingPodsTest, PodKeyIsNamespaceSlashName) {
  EXPECT_EQ(podKey(unschedulablePod()), "default/web-1");
}

}  // namespace
}  // namespace nodewright::controllers::provisioning
