#pragma once

// Seed-era and v1 objects for the conversion tests, written as the YAML a user would apply
// and decoded (and validated) through the registry, so every fixture is a valid object.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "api/conversion/common.h"
#include "api/object.h"
#include "api/yaml.h"

namespace nodewright::api::conversion::testing {

// Decodes one YAML document as T; a parse, decode or validation error fails the test.
template <class T>
T decode(std::string_view yaml, ObjectOptions options = {}) {
  auto docs = parseDocuments(yaml);
  if (!docs || docs->size() != 1) {
    ADD_FAILURE() << "not one YAML document: " << yaml;
    return T{};
  }
  DecodedObject decoded = decodeObject(docs->front().value, builtinRegistry(), options);
  for (const FieldError& e : decoded.errors) {
    ADD_FAILURE() << e.toString();
  }
  if (!decoded.object || decoded.object->as<T>() == nullptr) {
    ADD_FAILURE() << "not the expected kind: " << yaml;
    return T{};
  }
  return *decoded.object->as<T>();
}

// The rendered errors of a failed conversion, or one "converted" entry if it succeeded.
template <class T>
std::vector<std::string> errorsOf(const Converted<T>& converted) {
  if (converted) {
    return {"converted"};
  }
  std::vector<std::string> out;
  for (const FieldError& e : converted.error()) {
    out.push_back(e.toString());
  }
  return out;
}

// Every convertible Provisioner field, in the flat (pre-seed-002) form.
inline constexpr std::string_view kFullProvisioner = R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
  labels: {team: a}
  annotations: {note: kept}
spec:
  annotations: {example.com/owner: team-a}
  labels: {team: team-a, custom-label: custom-value}
  taints:
  - {key: example.com/special-taint, value: "true", effect: NoSchedule}
  startupTaints:
  - {key: example.com/another-taint, value: "true", effect: NoExecute}
  requirements:
  - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["3"]}
  - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
  - {key: kubernetes.io/arch, operator: Exists}
  kubeletConfiguration:
    clusterDNS: [10.0.1.100]
    maxPods: 20
    podsPerCore: 2
    systemReserved: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi}
    kubeReserved: {cpu: 200m}
    evictionHard: {memory.available: 5%}
    evictionSoft: {nodefs.available: 10%}
    evictionSoftGracePeriod: {nodefs.available: 1m}
    evictionMaxPodGracePeriod: 60
    imageGCHighThresholdPercent: 85
    imageGCLowThresholdPercent: 80
    cpuCFSQuota: false
  providerRef: {apiVersion: karpenter.k8s.aws/v1alpha1, kind: AWSNodeTemplate, name: default}
  ttlSecondsUntilExpired: 2592000
  ttlSecondsAfterEmpty: 30
  limits:
    resources: {cpu: "1000", memory: 1000Gi}
  weight: 50
status:
  lastScaleTime: "2024-01-02T03:04:05Z"
  resources: {cpu: "4", memory: 16Gi}
  conditions:
  - {type: Ready, status: "False", severity: Warning, lastTransitionTime: "2024-01-02T03:04:05Z",
     reason: NodeTemplateNotFound, message: waiting}
)";

// Seed 002's form: the node-shaping fields under spec.template.
inline constexpr std::string_view kTemplateProvisioner = R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: templated}
spec:
  template:
    requirements:
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
    labels: {team: team-a}
    taints:
    - {key: example.com/special-taint, effect: NoSchedule}
    annotations: {example.com/owner: team-a}
    startupTaints:
    - {key: example.com/init, effect: NoSchedule}
    providerRef: {name: default}
  consolidation: {enabled: true}
)";

inline constexpr std::string_view kFullMachine = R"(
apiVersion: karpenter.sh/v1alpha5
kind: Machine
metadata:
  name: default-abcde
  labels: {karpenter.sh/provisioner-name: default}
spec:
  taints:
  - {key: example.com/special-taint, value: "true", effect: NoSchedule}
  startupTaints:
  - {key: example.com/init, effect: NoSchedule}
  requirements:
  - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
  resources:
    requests: {cpu: 1500m, memory: 2Gi, pods: "5"}
  kubelet:
    maxPods: 30
    systemReserved: {memory: 200Mi}
  machineTemplateRef: {apiVersion: karpenter.k8s.aws/v1alpha1, kind: AWSNodeTemplate, name: default}
status:
  nodeName: ip-10-0-0-1.ec2.internal
  providerID: aws:///us-west-2a/i-0123456789abcdef0
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
  conditions:
  - {type: MachineLaunched, status: "True", lastTransitionTime: "2024-01-02T03:04:05Z"}
  - {type: MachineRegistered, status: "True", severity: Info, reason: Registered}
  - {type: MachineInitialized, status: "False", message: waiting for startup taints}
  - {type: MachineDrifted, status: "True", severity: Warning}
  - {type: Ready, status: "False"}
)";

inline constexpr std::string_view kFullNodeTemplate = R"(
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: default
  annotations: {note: kept}
spec:
  subnetSelector: {karpenter.sh/discovery: demo, Name: "*private*"}
  securityGroupSelector: {aws-ids: "sg-123, sg-456"}
  instanceProfile: KarpenterNodeInstanceProfile-demo
  amiFamily: Bottlerocket
  amiSelector: {aws::name: "my-ami-1,my-ami-2", aws::owners: "123456789012,amazon", team: a}
  userData: |
    [settings.kubernetes]
    kube-api-qps = 30
  tags: {team: a, cost-center: "42"}
  metadataOptions: {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 2,
                    httpTokens: required}
  blockDeviceMappings:
  - deviceName: /dev/xvda
    ebs: {volumeSize: 100Gi, volumeType: gp3, iops: 3000, throughput: 125, encrypted: true,
          deleteOnTermination: true, kmsKeyID: "arn:aws:kms:us-west-2:111122223333:key/1",
          snapshotID: snap-0123}
  detailedMonitoring: true
  associatePublicIpAddress: false
  context: ctx-1
  networkInterfaces:
  - associatePublicIPAddress: false
    associateCarrierIPAddress: false
    deleteOnTermination: true
    description: primary
    deviceIndex: 0
    interfaceType: interface
    networkCardIndex: 0
    ipv4PrefixCount: 1
    ipv6PrefixCount: 2
  - description: efa
    deviceIndex: 1
    networkCardIndex: 1
    interfaceType: efa
    subnetSelector: {aws::ids: subnet-2}
    securityGroupSelector: {aws::name: "efa-sg"}
status:
  subnets: [{id: subnet-1, zone: us-west-2a}]
  securityGroups: [{id: sg-123, name: default}]
  amis:
  - id: ami-123
    name: my-ami-1
    requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
)";

}  // namespace nodewright::api::conversion::testing
