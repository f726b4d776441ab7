#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/aws/moto_network.h"
#include "support/aws/moto_server.h"
#include "support/e2e/cluster.h"
#include "support/emulators/ec2_fixture.h"
#include "support/kube/objects.h"

// The same scale-up against moto_server, the second real EC2 peer: nodewright launches through
// moto's CreateFleet, and the node agent registers Nodes from moto's instances.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;

std::string nodeClassYaml(const aws::testing::MotoNetwork& network) {
  return fmt::format(R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-nodewright
  amiFamily: AL2023
  amiSelectorTerms:
    - id: {}
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright-moto
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: nodewright-moto
)",
                     network.imageId);
}

constexpr const char* kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  # moto starts fleet instances in its default security group, not the launch template's, so the
  # drift check rightly finds them drifted; a zero budget keeps replacements out of the count.
  disruption:
    budgets:
      - nodes: "0"
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["4"]
        - key: karpenter.k8s.aws/instance-cpu
          operator: Lt
          values: ["9"]
)";

constexpr const char* kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: inflate
  namespace: default
spec:
  replicas: 30
  selector:
    matchLabels:
      app: inflate
  template:
    metadata:
      labels:
        app: inflate
    spec:
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: 500m
              memory: 1Gi
)";

TEST(ProvisioningMoto, PendingPodsBecomeMotoInstancesAndNodes) {
  if (auto missing = emulators::testing::missingPythonClients(true, false)) {
    FAIL() << *missing;
  }
  aws::testing::MotoServer moto;
  ASSERT_EQ(moto.error(), "");
  emulators::testing::QueryClient wire(moto.url(), core::systemClock());
  const auto network = aws::testing::createMotoNetwork(wire, "nodewright-moto", 61);

  testing::ClusterOptions options;
  options.awsEndpoint = moto.url();
  EmbeddedCluster cluster(options);
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", "-"}, nodeClassYaml(network));
  cluster.kubectl({"apply", "-f", "-"}, kNodePool);
  cluster.kubectl({"apply", "-f", "-"}, kDeployment);

  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 30); }, 180s))
      << "not every pod runs on a node from moto";
  auto machines = cluster.agentStack().provider().list();
  ASSERT_TRUE(machines) << machines.error().message();
  const auto claims = cluster.nodeClaims();
  EXPECT_EQ(machines->size(), claims.size());
  // 15 vCPU of requests on types of at most 8 vCPU.
  EXPECT_GE(claims.size(), 2u);
  for (const auto& node : cluster.nodes()) {
    EXPECT_TRUE(node.spec.providerID.starts_with("aws:///us-east-1"))
        << node.metadata.name << ": " << node.spec.providerID;
  }
  std::cout << fmt::format("moto: 30 pods on {} nodes, ${:.4f}/hour\n", claims.size(),
                           cluster.costPerHour(claims));
}

}  // namespace
}  // namespace nodewright::e2e
