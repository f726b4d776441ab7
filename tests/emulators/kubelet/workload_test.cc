// The Deployment, ReplicaSet and DaemonSet controllers against the embedded API server, driven
// through kubectl where a user would be: create, scale, set image.
#include <gtest/gtest.h>

#include "emulators/kubelet/binder.h"
#include "emulators/kubelet/cluster.h"
#include "emulators/kubelet/node_agent.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet::testing {
namespace {

class WorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workloads_ = std::make_unique<WorkloadControllers>(*cluster_.client, cluster_.clock);
    workloads_->setup(*cluster_.manager);
    binder_ = std::make_unique<Binder>(*cluster_.client, cluster_.clock);
    binder_->setup(*cluster_.manager);
    cluster_.start();
  }
  void TearDown() override { cluster_.stop(); }

  void kubectl(const std::vector<std::string>& args) {
    auto ran = apiserver::testing::kubectl(cluster_.apiServer, args);
    ASSERT_EQ(ran.code, 0) << ran.err << ran.out;
  }

  // Pods that are not being deleted.
  std::vector<Pod> activePods(const std::string& selector) {
    std::vector<Pod> out;
    for (auto& pod : cluster_.podList(selector)) {
      if (!pod.metadata.deletionTimestamp) {
        out.push_back(std::move(pod));
      }
    }
    return out;
  }

  std::vector<api::corev1::ReplicaSet> replicaSets() {
    auto sets = cluster_.replicaSets.list("default");
    EXPECT_TRUE(sets) << sets.error().describe();
    return sets.value_or(std::vector<api::corev1::ReplicaSet>{});
  }

  api::corev1::Deployment deployment(const std::string& name) {
    auto got = cluster_.deployments.get("default", name);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(api::corev1::Deployment{});
  }

  Cluster cluster_;
  std::unique_ptr<WorkloadControllers> workloads_;
  std::unique_ptr<Binder> binder_;
};

TEST_F(WorkloadTest, DeploymentMakesOneReplicaSetAndItsPodsAndScales) {
  kubectl({"create", "deployment", "inflate", "--image=registry.k8s.io/pause", "--replicas", "10"});
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    return deployment("inflate").status.replicas == 10 && activePods("app=inflate").size() == 10;
  }));
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 1u);
  const auto& set = sets[0];
  const std::string hash = set.metadata.labels.at(kPodTemplateHashLabel);
  EXPECT_EQ(set.metadata.name, "inflate-" + hash);
  EXPECT_EQ(set.spec.replicas, 10);
  EXPECT_EQ(set.status.replicas, 10);
  for (const Pod& pod : activePods("app=inflate")) {
    EXPECT_EQ(pod.metadata.labels.at(kPodTemplateHashLabel), hash);
    EXPECT_TRUE(pod.metadata.name.starts_with("inflate-" + hash + "-")) << pod.metadata.name;
    EXPECT_TRUE(isControlledBy(pod.metadata, set.metadata.uid));
    EXPECT_EQ(pod.spec.containers.at(0).image, "registry.k8s.io/pause");
  }
  // No node: every pod is pending and said to be unschedulable, as a provisioner expects.
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    for (const Pod& pod : activePods("app=inflate")) {
      const auto* c = api::corev1::findCondition(pod.status, "PodScheduled");
      if (c == nullptr || c->reason != "Unschedulable") {
        return false;
      }
    }
    return true;
  }));
  const auto d = deployment("inflate");
  EXPECT_EQ(d.status.observedGeneration, d.metadata.generation);
  EXPECT_EQ(d.status.updatedReplicas, 10);
  EXPECT_EQ(d.status.availableReplicas, 0);

  kubectl({"scale", "deployment", "inflate", "--replicas", "3"});
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    return activePods("app=inflate").size() == 3 && deployment("inflate").status.replicas == 3;
  }));
  EXPECT_EQ(cluster_.podList("app=inflate").size(), 3u) << "unbound pods go at once";
  EXPECT_EQ(replicaSets().at(0).spec.replicas, 3);
}

TEST_F(WorkloadTest, ChangedTemplateMakesANewReplicaSetAndScalesTheOldToZero) {
  kubectl({"create", "deployment", "inflate", "--image=registry.k8s.io/pause", "--replicas", "4"});
  ASSERT_TRUE(cluster_.advanceUntil([&] { return activePods("app=inflate").size() == 4; }));
  const std::string oldHash = replicaSets().at(0).metadata.labels.at(kPodTemplateHashLabel);

  kubectl({"set", "image", "deployment/inflate", "pause=registry.k8s.io/pause:3.10"});
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    auto pods = activePods("app=inflate");
    return pods.size() == 4 && std::all_of(pods.begin(), pods.end(), [&](const Pod& p) {
             return p.spec.containers.at(0).image == "registry.k8s.io/pause:3.10";
           });
  }));
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 2u);
  for (const auto& set : sets) {
    const bool old = set.metadata.labels.at(kPodTemplateHashLabel) == oldHash;
    EXPECT_EQ(set.spec.replicas, old ? 0 : 4) << set.metadata.name;
  }
}

TEST_F(WorkloadTest, ScalingDownDeletesUnboundPodsFirst) {
  ASSERT_TRUE(cluster_.nodes.create(readyNode("node-a", "8", "16Gi", 2)));
  kubectl({"create", "deployment", "inflate", "--image=registry.k8s.io/pause", "--replicas", "4"});
  auto bound = [&] {
    std::set<std::string> names;
    for (const Pod& pod : activePods("app=inflate")) {
      if (!pod.spec.nodeName.empty()) {
        names.insert(pod.metadata.name);
      }
    }
    return names;
  };
  ASSERT_TRUE(cluster_.advanceUntil(
      [&] { return bound().size() == 2 && activePods("app=inflate").size() == 4; }));
  const auto wasBound = bound();

  kubectl({"scale", "deployment", "inflate", "--replicas", "2"});
  ASSERT_TRUE(cluster_.advanceUntil([&] { return cluster_.podList("app=inflate").size() == 2; }));
  std::set<std::string> left;
  for (const Pod& pod : cluster_.podList("app=inflate")) {
    left.insert(pod.metadata.name);
  }
  EXPECT_EQ(left, wasBound);
}

TEST_F(WorkloadTest, DaemonSetRunsOnePodOnEachRegisteredMatchingNode) {
  auto worker = [](const std::string& name) {
    Node node = readyNode(name, "4", "8Gi", 110);
    node.metadata.labels["role"] = "worker";
    return node;
  };
  ASSERT_TRUE(cluster_.nodes.create(worker("plain")));
  Node unregistered = worker("unregistered");
  unregistered.spec.taints = {taint(kUnregisteredTaintKey, "", "NoExecute")};
  ASSERT_TRUE(cluster_.nodes.create(unregistered));
  Node tainted = worker("tainted");
  tainted.spec.taints = {taint("dedicated", "db", "NoSchedule")};
  ASSERT_TRUE(cluster_.nodes.create(tainted));
  ASSERT_TRUE(cluster_.nodes.create(readyNode("not-a-worker", "4", "8Gi", 110)));
  Node booting = worker("booting");  // NotReady and cordoned: the automatic tolerations
  booting.status.conditions[0].status = "False";
  booting.spec.unschedulable = true;
  ASSERT_TRUE(cluster_.nodes.create(booting));

  api::corev1::DaemonSet set = daemonSet("agent", "100m", "64Mi");
  set.spec.template_.spec.nodeSelector = {{"role", "worker"}};
  ASSERT_TRUE(cluster_.daemonSets.create(set));

  auto nodesWithPods = [&] {
    std::set<std::string> nodes;
    for (const Pod& pod : activePods("app=agent")) {
      nodes.insert(pod.spec.nodeName);
    }
    return nodes;
  };
  using Names = std::set<std::string>;
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    return nodesWithPods() == Names{"booting", "plain"};
  })) << nodesWithPods().size();
  auto pods = activePods("app=agent");
  ASSERT_EQ(pods.size(), 2u);
  api::corev1::Toleration notReady;
  notReady.key = "node.kubernetes.io/not-ready";
  notReady.operator_ = "Exists";
  notReady.effect = "NoExecute";
  EXPECT_TRUE(std::find(pods[0].spec.tolerations.begin(), pods[0].spec.tolerations.end(),
                        notReady) != pods[0].spec.tolerations.end());
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    auto got = cluster_.daemonSets.get("default", "agent");
    return got && got->status.desiredNumberScheduled == 2 &&
           got->status.currentNumberScheduled == 2;
  }));

  // Karpenter registers a node: it gets its pod. A node goes: so does its pod.
  ASSERT_TRUE(cluster_.updateNode("unregistered", [](Node& n) { n.spec.taints.clear(); }));
  ASSERT_TRUE(cluster_.nodes.remove("", "plain"));
  ASSERT_TRUE(cluster_.advanceUntil([&] {
    return nodesWithPods() == Names{"booting", "unregistered"};
  }));
  ASSERT_TRUE(cluster_.advanceUntil([&] { return activePods("app=agent").size() == 2; }));
}

}  // namespace
}  // namespace nodewright::emulators::kubelet::testing
