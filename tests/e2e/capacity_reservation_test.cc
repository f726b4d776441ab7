#include <algorithm>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "support/e2e/cluster.h"
#include "support/emulators/query_client.h"
#include "support/kube/objects.h"

// Issue 23, capacity reservations end to end: an On-Demand Capacity Reservation of two m5.large
// made through EC2's API, an EC2NodeClass selecting it by tag, a NodePool allowing `reserved` and
// on-demand, applied with kubectl. Two pods (one per node) land on reserved nodes that carry the
// reservation's labels; scaled to four, the two new pods land on on-demand nodes, since the
// reservation is full.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;

constexpr const char* kNodeClass = R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: reserved
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
  capacityReservationSelectorTerms:
    - tags:
        team: ml
)";

constexpr const char* kNodePool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: reserved
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: reserved
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["reserved", "on-demand"]
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["m5.large"]
  disruption:
    consolidateAfter: 1h
)";

// One pod per m5.large: 1.5 CPU of its 2.
std::string workload(int replicas) {
  return R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: default
spec:
  replicas: )" +
         std::to_string(replicas) + R"(
  selector:
    matchLabels: {app: trainer}
  template:
    metadata:
      labels: {app: trainer}
    spec:
      containers:
        - name: trainer
          image: registry.k8s.io/pause:3.9
          resources:
            requests: {cpu: 1500m, memory: 1Gi}
)";
}

// capacity type -> the nodes of it that run a trainer pod.
std::map<std::string, int> podNodesByCapacityType(EmbeddedCluster& cluster) {
  std::map<std::string, std::string> typeOfNode;
  for (const auto& node : cluster.nodes()) {
    auto it = node.metadata.labels.find("karpenter.sh/capacity-type");
    typeOfNode[node.metadata.name] = it == node.metadata.labels.end() ? "" : it->second;
  }
  std::map<std::string, int> out;
  for (const auto& pod : cluster.pods()) {
    ++out[typeOfNode[pod.spec.nodeName]];
  }
  return out;
}

TEST(CapacityReservationEndToEnd, PodsLandOnReservedCapacityFirstThenOnDemandWhenItIsFull) {
  EmbeddedCluster cluster;
  emulators::testing::QueryClient ec2(cluster.emulator()->url(), core::systemClock());
  auto created = ec2.call("CreateCapacityReservation",
                          {{"InstanceType", "m5.large"},
                           {"InstancePlatform", "Linux/UNIX"},
                           {"AvailabilityZone", "us-east-1a"},
                           {"InstanceCount", "2"},
                           {"InstanceMatchCriteria", "targeted"},
                           {"TagSpecifications.1.ResourceType", "capacity-reservation"},
                           {"TagSpecifications.1.Tag.1.Key", "team"},
                           {"TagSpecifications.1.Tag.1.Value", "ml"}});
  ASSERT_TRUE(created) << created.error().message();
  ASSERT_EQ(created->status, 200) << created->body;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(created->body.c_str()));
  const std::string id =
      doc.document_element().child("capacityReservation").child_value("capacityReservationId");

  cluster.startControllers();
  cluster.kubectl({"apply", "-f", "-"}, kNodeClass);
  cluster.kubectl({"apply", "-f", "-"}, kNodePool);
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        return cluster.kubectl({"get", "ec2nodeclass", "reserved", "-o",
                                "jsonpath={.status.capacityReservations[*].id}"}) == id;
      },
      30s))
      << "status.capacityReservations never listed " << id;

  cluster.kubectl({"apply", "-f", "-"}, workload(2));
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 2); }, 120s))
      << "the first two pods never ran";
  EXPECT_EQ(podNodesByCapacityType(cluster), (std::map<std::string, int>{{"reserved", 2}}));
  for (const auto& node : cluster.nodes()) {
    EXPECT_EQ(node.metadata.labels.at("karpenter.k8s.aws/capacity-reservation-id"), id);
    EXPECT_EQ(node.metadata.labels.at("karpenter.k8s.aws/capacity-reservation-type"), "default");
    EXPECT_EQ(node.metadata.labels.at("topology.kubernetes.io/zone"), "us-east-1a");
  }

  cluster.kubectl({"apply", "-f", "-"}, workload(4));
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 4); }, 180s))
      << "the scaled-up pods never ran";
  EXPECT_EQ(podNodesByCapacityType(cluster),
            (std::map<std::string, int>{{"on-demand", 2}, {"reserved", 2}}));
}

}  // namespace
}  // namespace nodewright::e2e
