#include <map>
#include <string>

#include <gtest/gtest.h>

#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// A Deployment asking for an AMD GPU (amd.com/gpu, the resource AMD's device plugin serves and
// Karpenter v1.14 gives the AMD types) on the embedded stack: nodewright finds the g4ad types
// among the EC2 emulator's, launches one, and the pod runs there.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;

constexpr const char* kAmdGpu = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  role: KarpenterNodeRole-nodewright
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rocm
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels:
      app: rocm
  template:
    metadata:
      labels:
        app: rocm
    spec:
      containers:
        - name: rocm
          image: rocm/rocm-terminal:latest
          resources:
            requests:
              cpu: "1"
              memory: 2Gi
              amd.com/gpu: 1
            limits:
              amd.com/gpu: 1
)";

TEST(AcceleratorsEndToEnd, AnAmdGpuPodRunsOnAG4adNode) {
  EmbeddedCluster cluster;
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", "-"}, kAmdGpu);
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 1); }, 120s))
      << cluster.kubectl({"get", "pods,nodeclaims", "-o", "wide"});

  std::map<std::string, api::corev1::Node> nodes;
  for (const auto& node : cluster.nodes()) {
    nodes[node.metadata.name] = node;
  }
  const auto pods = cluster.pods();
  ASSERT_EQ(pods.size(), 1u);
  ASSERT_TRUE(nodes.count(pods[0].spec.nodeName)) << pods[0].spec.nodeName;
  const api::corev1::Node& node = nodes.at(pods[0].spec.nodeName);
  const auto& labels = node.metadata.labels;
  // The cheapest type with an AMD GPU: g4ad.xlarge, Radeon Pro V520, labelled as Karpenter does.
  EXPECT_EQ(labels.at("node.kubernetes.io/instance-type"), "g4ad.xlarge");
  EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-family"), "g4ad");
  EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-gpu-manufacturer"), "amd");
  EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-gpu-name"), "radeon-pro-v520");
  EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-gpu-count"), "1");
  EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-gpu-memory"), "8192");
  EXPECT_EQ(node.status.allocatable.at("amd.com/gpu").value(), 1);
  EXPECT_EQ(node.status.allocatable.count("nvidia.com/gpu"), 0u);

  const auto claims = cluster.nodeClaims();
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].status.capacity.at("amd.com/gpu").value(), 1);
  auto instances = cluster.agentStack().ec2().describeInstances(
      {}, {{"instance-state-name", {"running", "pending"}}});
  ASSERT_TRUE(instances) << instances.error().message;
  ASSERT_EQ(instances->size(), 1u);
  EXPECT_EQ(instances->front().instanceType, "g4ad.xlarge");
}

}  // namespace
}  // namespace nodewright::e2e
