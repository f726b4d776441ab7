// Everything together on the EC2 emulator: machines launched through the provider become
// Nodes, Karpenter's registration is played by the test, and a Deployment and a DaemonSet end
// up Running on them; scaling down stops pods through graceful deletion.
#include <gtest/gtest.h>

#include "emulators/kubelet/agent_fixture.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

class AgentWorkloadTest : public AgentTest {
 protected:
  void SetUp() override {
    start();
    nodeClasses_["default"] = cloud::aws::testing::discoveryNodeClass("default");
  }

  std::vector<Pod> running(const std::string& selector) {
    std::vector<Pod> out;
    for (auto& pod : cluster_.podList(selector)) {
      if (pod.status.phase == "Running" && isPodReady(pod) && !pod.metadata.deletionTimestamp) {
        out.push_back(std::move(pod));
      }
    }
    return out;
  }
};

TEST_F(AgentWorkloadTest, DeploymentAndDaemonSetRunOnTheAgentsNodes) {
  startAgent(/*workloads=*/true);
  std::map<std::string, std::string> ipOf;  // node -> InternalIP
  for (const char* claim : {"claim-a", "claim-b"}) {
    auto node = awaitNode(launch(claim, "default", {"m5.large"}));
    ASSERT_TRUE(node);
    registerAsKarpenter(node->metadata.name, claim);
    ipOf[node->metadata.name] = internalIp(*node);
  }

  ASSERT_TRUE(cluster_.daemonSets.create(daemonSet("cni", "100m", "128Mi")));

  // m5.large: 1930m allocatable; after the 100m daemon, three 500m pods per node.
  api::corev1::Deployment inflate;
  inflate.apiVersion = "apps/v1";
  inflate.kind = "Deployment";
  inflate.metadata.name = "inflate";
  inflate.metadata.namespace_ = "default";
  inflate.spec.replicas = 6;
  inflate.spec.selector = api::LabelSelector{{{"app", "inflate"}}, {}};
  inflate.spec.template_.metadata.labels = {{"app", "inflate"}};
  inflate.spec.template_.spec = pendingPod("unused", "500m", "256Mi").spec;
  ASSERT_TRUE(cluster_.deployments.create(inflate));

  ASSERT_TRUE(cluster_.advanceUntil(
      [&] { return running("app=inflate").size() == 6 && running("app=cni").size() == 2; }));
  std::map<std::string, int> perNode;
  for (const Pod& pod : running("app=inflate")) {
    ++perNode[pod.spec.nodeName];
    EXPECT_EQ(pod.status.hostIP, ipOf.at(pod.spec.nodeName));
    EXPECT_FALSE(pod.status.podIP.empty());
    EXPECT_FALSE(pod.status.startTime.isZero());
  }
  EXPECT_EQ(perNode.size(), 2u);
  for (const auto& [node, count] : perNode) {
    EXPECT_EQ(count, 3) << node;
  }
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    auto d = cluster_.deployments.get("default", "inflate");
    return d && d->status.readyReplicas == 6 && d->status.availableReplicas == 6;
  }));

  // Scaling down deletes bound pods gracefully; their kubelet stops them at once.
  // The Deployment controller writes status meanwhile: re-read on a conflict, as kubectl does.
  auto scaled = kube::updateWithRetry(*cluster_.client, cluster_.deployments.kind(), "default",
                                      "inflate", [](api::Object& object) {
                                        object.as<api::corev1::Deployment>()->spec.replicas = 2;
                                        return true;
                                      });
  ASSERT_TRUE(scaled) << scaled.error().describe();
  ASSERT_TRUE(cluster_.advanceUntil([&] { return cluster_.podList("app=inflate").size() == 2; }));
  EXPECT_EQ(running("app=inflate").size(), 2u);
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
