#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Karpenter's own Windows Server 2022 example (aws/karpenter-provider-aws v1.14
// examples/v1/windows-2022.yaml: an on-demand amd64 NodePool of c/m/r types after the second
// generation, and an EC2NodeClass with the windows2022@latest alias and IMDSv2) on the embedded
// stack: the node class becomes Ready against the EC2 emulator's Windows AMIs, and Windows pods
// run on Windows nodes of build 10.0.20348, launched from the image AWS's SSM parameter names.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;

constexpr const char* kWindows2022 = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: windows2022
  annotations:
    kubernetes.io/description: "Windows Server 2022 nodes"
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/os
          operator: In
          values: ["windows"]
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["2"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: windows2022
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: windows2022
spec:
  role: KarpenterNodeRole-nodewright
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright
  amiSelectorTerms:
    - alias: windows2022@latest
  metadataOptions:
    httpProtocolIPv6: disabled
    httpTokens: required
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: iis
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: iis
  template:
    metadata:
      labels:
        app: iis
    spec:
      nodeSelector:
        kubernetes.io/os: windows
      containers:
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          resources:
            requests:
              cpu: 500m
              memory: 512Mi
)";

constexpr const char* kParameter =
    "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/"
    "image_id";

TEST(WindowsEndToEnd, Windows2022NodeClassBecomesReadyAndItsPodsRunOnWindowsNodes) {
  EmbeddedCluster cluster;
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", "-"}, kWindows2022);

  auto ready = [&] {
    return cluster.kubectl({"get", "ec2nodeclass", "windows2022", "-o",
                            "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"});
  };
  ASSERT_TRUE(kube::testing::eventually([&] { return ready() == "True"; }, 60s))
      << cluster.kubectl({"get", "ec2nodeclass", "windows2022", "-o", "yaml"});
  // The resolved image is the one behind AWS's parameter, and asks for Windows of its build.
  const std::string image = cluster.emulator()->emulator().world().ssmParameters.at(kParameter);
  EXPECT_EQ(cluster.kubectl(
                {"get", "ec2nodeclass", "windows2022", "-o", "jsonpath={.status.amis[*].id}"}),
            image);
  EXPECT_EQ(cluster.kubectl({"get", "ec2nodeclass", "windows2022", "-o",
                             "jsonpath={.status.amis[0].requirements[?(@.key==\"node.kubernetes.io/"
                             "windows-build\")].values[0]}"}),
            "10.0.20348");

  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 2); }, 120s))
      << cluster.kubectl({"get", "pods,nodeclaims", "-o", "wide"});
  std::map<std::string, api::corev1::Node> nodes;
  for (const auto& node : cluster.nodes()) {
    nodes[node.metadata.name] = node;
  }
  for (const auto& pod : cluster.pods()) {
    ASSERT_TRUE(nodes.count(pod.spec.nodeName)) << pod.metadata.name;
    const auto& labels = nodes.at(pod.spec.nodeName).metadata.labels;
    EXPECT_EQ(labels.at("kubernetes.io/os"), "windows") << pod.spec.nodeName;
    EXPECT_EQ(labels.at("node.kubernetes.io/windows-build"), "10.0.20348") << pod.spec.nodeName;
    EXPECT_EQ(labels.at("kubernetes.io/arch"), "amd64") << pod.spec.nodeName;
    EXPECT_EQ(labels.at("karpenter.sh/capacity-type"), "on-demand") << pod.spec.nodeName;
    // Its kubelet reports Windows, as a Windows node's does, not the Linux image.
    const auto& info = nodes.at(pod.spec.nodeName).status.nodeInfo;
    EXPECT_EQ(info.operatingSystem, "windows") << pod.spec.nodeName;
    EXPECT_TRUE(info.osImage.starts_with("Windows Server")) << info.osImage;
    EXPECT_TRUE(info.kernelVersion.starts_with("10.0")) << info.kernelVersion;
  }
  const auto claims = cluster.nodeClaims();
  ASSERT_FALSE(claims.empty());
  for (const auto& claim : claims) {
    EXPECT_EQ(claim.status.imageID, image) << claim.metadata.name;
    // Windows nodes keep the kubelet's 110 pods whatever their ENIs.
    EXPECT_EQ(claim.status.capacity.at("pods").value(), 110) << claim.metadata.name;
  }
  auto instances = cluster.agentStack().ec2().describeInstances(
      {}, {{"instance-state-name", {"running", "pending"}}});
  ASSERT_TRUE(instances) << instances.error().message;
  ASSERT_EQ(instances->size(), claims.size());
  for (const auto& instance : *instances) {
    EXPECT_EQ(instance.imageId, image) << instance.instanceId;
    EXPECT_EQ(instance.platform, "windows") << instance.instanceId;
  }
}

}  // namespace
}  // namespace nodewright::e2e
