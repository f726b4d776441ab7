#include "api/core/node.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/core/core_test_util.h"

namespace nodewright::api::corev1 {
namespace {

using testing::at;
using testing::comparable;
using testing::decode;
using testing::parseYaml;
using testing::roundTrip;
using testing::validationErrors;
using Strings = std::vector<std::string>;

// A Karpenter-launched node as the kubelet and node controllers leave it, being disrupted.
constexpr std::string_view kNode = R"(
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-23.ec2.internal
  uid: 9b1d2e3f-0000-4000-8000-00000000abcd
  resourceVersion: "50122"
  creationTimestamp: "2024-05-01T09:58:00Z"
  labels:
    kubernetes.io/hostname: ip-10-0-1-23.ec2.internal
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: m5.xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: spot
    karpenter.sh/initialized: "true"
  annotations:
    karpenter.sh/nodepool-hash: "4012513481623584108"
    node.alpha.kubernetes.io/ttl: "0"
  finalizers:
  - karpenter.sh/termination
  ownerReferences:
  - apiVersion: karpenter.sh/v1
    kind: NodeClaim
    name: default-x7k2p
    uid: 1c2d3e4f-0000-4000-8000-000000000002
    blockOwnerDeletion: true
spec:
  providerID: aws:///us-east-1a/i-0123456789abcdef0
  podCIDR: 10.244.1.0/24
  podCIDRs: [10.244.1.0/24]
  unschedulable: true
  taints:
  - key: karpenter.sh/disrupted
    effect: NoSchedule
  - key: node.kubernetes.io/unreachable
    effect: NoExecute
    timeAdded: "2024-05-01T11:00:00Z"
status:
  capacity:
    cpu: "4"
    memory: 16073912Ki
    ephemeral-storage: 20959212Ki
    hugepages-1Gi: "0"
    pods: "58"
  allocatable:
    cpu: 3920m
    memory: 15056056Ki
    ephemeral-storage: "18242267924"
    hugepages-1Gi: "0"
    pods: "58"
  conditions:
  - type: MemoryPressure
    status: "False"
    lastHeartbeatTime: "2024-05-01T10:59:00Z"
    lastTransitionTime: "2024-05-01T09:58:30Z"
    reason: KubeletHasSufficientMemory
    message: kubelet has sufficient memory available
  - type: Ready
    status: "True"
    lastHeartbeatTime: "2024-05-01T10:59:00Z"
    lastTransitionTime: "2024-05-01T09:59:10Z"
    reason: KubeletReady
    message: kubelet is posting ready status
  addresses:
  - type: InternalIP
    address: 10.0.1.23
  - type: InternalDNS
    address: ip-10-0-1-23.ec2.internal
  - type: Hostname
    address: ip-10-0-1-23.ec2.internal
  daemonEndpoints:
    kubeletEndpoint:
      Port: 10250
  images:
  - names: [registry.example.com/web:1.4.2]
    sizeBytes: 51234567
  nodeInfo:
    machineID: ec2a1b2c3d4e5f60718293a4b5c6d7e8
    systemUUID: ec2a1b2c-3d4e-5f60-7182-93a4b5c6d7e8
    bootID: 2b3c4d5e-6f70-4812-9345-6789abcdef01
    kernelVersion: 6.1.90-99.173.amzn2023.x86_64
    osImage: Amazon Linux 2023.4.20240528
    containerRuntimeVersion: containerd://1.7.11
    kubeletVersion: v1.30.0-eks-036c24b
    kubeProxyVersion: v1.30.0-eks-036c24b
    operatingSystem: linux
    architecture: amd64
    swap: {}
  runtimeHandlers:
  - name: runc
    features: {recursiveReadOnlyMounts: true}
)";

TEST(NodeRoundTripTest, DecodeEncodeKeepsEveryField) {
  Json input = parseYaml(kNode);
  Json output = roundTrip(input);
  EXPECT_EQ(comparable(output), comparable(input));
  for (const char* pointer : {"/status/daemonEndpoints", "/status/images", "/status/nodeInfo/swap",
                              "/status/runtimeHandlers"}) {
    EXPECT_EQ(at(output, pointer), at(input, pointer)) << pointer;
  }
}

TEST(NodeRoundTripTest, ModelledFieldsAreTyped) {
  auto decoded = decode(parseYaml(kNode));
  ASSERT_TRUE(decoded.object);
  const Node* node = decoded.object->as<Node>();
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->spec.providerID, "aws:///us-east-1a/i-0123456789abcdef0");
  EXPECT_TRUE(node->spec.unschedulable);
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[1].timeAdded.toString(), "2024-05-01T11:00:00Z");
  EXPECT_EQ(node->status.allocatable.at("cpu").milliValue(), 3920);
  EXPECT_EQ(node->status.nodeInfo.architecture, "amd64");
  ASSERT_NE(findCondition(node->status, "Ready"), nullptr);
  EXPECT_EQ(findCondition(node->status, "Ready")->reason, "KubeletReady");
  EXPECT_EQ(node->status.addresses[0].address, "10.0.1.23");
}

struct InvalidNodeCase {
  std::string name;
  std::string body;  // YAML after metadata
  Strings errors;
};

void PrintTo(const InvalidNodeCase& c, std::ostream* os) {
  *os << c.name;
}

class NodeValidationTest : public ::testing::TestWithParam<InvalidNodeCase> {};

TEST_P(NodeValidationTest, ReportsEveryErrorWithItsPath) {
  EXPECT_EQ(
      validationErrors("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" + GetParam().body),
      GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Nodes, NodeValidationTest,
    ::testing::Values(
        InvalidNodeCase{"Valid", "spec: {providerID: 'aws:///us-east-1a/i-1'}\n", {}},
        InvalidNodeCase{"TaintEffectUnsupported",
                        "spec:\n  taints: [{key: a, effect: NoRun}]\n",
                        {"spec.taints[0].effect: Unsupported value: \"NoRun\": supported values: "
                         "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
        InvalidNodeCase{"TaintWithoutEffect",
                        "spec:\n  taints: [{key: a}]\n",
                        {"spec.taints[0].effect: Required value"}},
        InvalidNodeCase{"DuplicateTaint",
                        "spec:\n  taints:\n  - {key: a, value: v1, effect: NoSchedule}\n"
                        "  - {key: a, value: v2, effect: NoSchedule}\n",
                        {"spec.taints[1]: Duplicate value: "
                         "{\"key\":\"a\",\"effect\":\"NoSchedule\"}: taints must be unique by "
                         "key and effect pair"}},
        InvalidNodeCase{"TaintWithOperator",
                        "spec:\n  taints: [{key: a, effect: NoSchedule, operator: Exists}]\n",
                        {"spec.taints[0].operator: field not declared in schema"}},
        InvalidNodeCase{"ConditionStatus",
                        "status:\n  conditions: [{type: Ready, status: Healthy}]\n",
                        {"status.conditions[0].status: Unsupported value: \"Healthy\": supported "
                         "values: \"True\", \"False\", \"Unknown\""}},
        InvalidNodeCase{"AddressWithoutAddress",
                        "status:\n  addresses: [{type: InternalIP}]\n",
                        {"status.addresses[0].address: Required value"}},
        InvalidNodeCase{"BadCapacity",
                        "status:\n  capacity: {cpu: 4 cores}\n",
                        {"status.capacity[cpu]: Invalid value: \"4 cores\": quantities must match "
                         "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}},
        InvalidNodeCase{"UnschedulableNotBool",
                        "spec: {unschedulable: \"yes\"}\n",
                        {"spec.unschedulable: Invalid value: \"yes\": must be of type boolean"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::corev1
