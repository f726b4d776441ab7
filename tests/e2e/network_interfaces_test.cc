#include <set>

#include <gtest/gtest.h>

#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Seed 001 end to end: a node class with four network interfaces. Only instance types that can
// carry four interfaces are offered to the NodeClaims, and the EC2 emulator (which rejects what
// real EC2 rejects) launches every one with its four interfaces.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;

constexpr const char* kNodeClass = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: four-enis
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
  networkInterfaces:
    - {deviceIndex: 0, networkCardIndex: 0, interfaceType: interface, description: primary, deleteOnTermination: true}
    - {deviceIndex: 1, networkCardIndex: 0, interfaceType: interface, description: storage, deleteOnTermination: true}
    - {deviceIndex: 2, networkCardIndex: 0, interfaceType: interface, description: replication, deleteOnTermination: true}
    - {deviceIndex: 3, networkCardIndex: 0, interfaceType: interface, description: management, deleteOnTermination: false}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: four-enis
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: four-enis
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: storage
  namespace: default
spec:
  replicas: 6
  selector:
    matchLabels:
      app: storage
  template:
    metadata:
      labels:
        app: storage
    spec:
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: 250m
              memory: 256Mi
)";

TEST(NetworkInterfacesEndToEnd, OnlyTypesCarryingFourInterfacesAreOfferedAndLaunched) {
  EmbeddedCluster cluster;
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", "-"}, kNodeClass);
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 6); }, 120s));

  auto catalog = cluster.agentStack().ec2().describeInstanceTypes();
  ASSERT_TRUE(catalog) << catalog.error().message;
  std::set<std::string> fewerThanFour;
  for (const auto& info : *catalog) {
    if (info.maximumNetworkInterfaces < 4) {
      fewerThanFour.insert(info.instanceType);
    }
  }
  ASSERT_FALSE(fewerThanFour.empty()) << "the catalog has no type the filter must drop";

  const auto claims = cluster.nodeClaims();
  ASSERT_FALSE(claims.empty());
  for (const auto& claim : claims) {
    for (const auto& r : claim.spec.requirements) {
      if (r.key != "node.kubernetes.io/instance-type") {
        continue;
      }
      EXPECT_FALSE(r.values.empty());
      for (const auto& type : r.values) {
        EXPECT_FALSE(fewerThanFour.count(type))
            << claim.metadata.name << " offers " << type << ", which carries fewer than 4";
      }
    }
  }
  auto instances = cluster.agentStack().ec2().describeInstances(
      {}, {{"instance-state-name", {"running", "pending"}}});
  ASSERT_TRUE(instances) << instances.error().message;
  ASSERT_EQ(instances->size(), claims.size());
  for (const auto& instance : *instances) {
    EXPECT_EQ(instance.networkInterfaces.size(), 4u) << instance.instanceId;
  }
}

}  // namespace
}  // namespace nodewright::e2e
