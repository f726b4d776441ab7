#include "api/karpenter/ec2nodeclass.h"

#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/karpenter/decode.h"

namespace nodewright::api::karpenter {
namespace {

using testing::decodeValid;

// The EC2NodeClass of the Karpenter v1 documentation, with every field set.
constexpr std::string_view kDocsNodeClass = R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  kubelet:
    podsPerCore: 2
    maxPods: 20
    systemReserved: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi}
    kubeReserved: {cpu: 200m, memory: 100Mi, ephemeral-storage: 3Gi}
    evictionHard: {memory.available: 5%, nodefs.available: 10%, nodefs.inodesFree: 10%}
    evictionSoft: {memory.available: 500Mi, nodefs.available: 15%, nodefs.inodesFree: 15%}
    evictionSoftGracePeriod: {memory.available: 1m, nodefs.available: 1m30s, nodefs.inodesFree: 2m}
    evictionMaxPodGracePeriod: 60
    imageGCHighThresholdPercent: 85
    imageGCLowThresholdPercent: 80
    cpuCFSQuota: true
    clusterDNS: ["10.0.1.100"]
  amiFamily: AL2023
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: my-cluster
        environment: test
    - id: subnet-09fa4a0a8f233a921
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: my-cluster
    - name: my-security-group
    - id: sg-063d7acfb4b06c82c
  capacityReservationSelectorTerms:
    - tags: {team: ml}
      ownerID: "123456789012"
    - id: cr-56fac701cc1951b03
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms:
    - tags:
        karpenter.sh/discovery: my-cluster
        environment: test
    - name: my-ami
      owner: "123456789012"
    - id: ami-123
    - ssmParameter: /aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id
  tags:
    team: team-a
    app: team-a-app
  metadataOptions:
    httpEndpoint: enabled
    httpProtocolIPv6: disabled
    httpPutResponseHopLimit: 2
    httpTokens: required
  blockDeviceMappings:
    - deviceName: /dev/xvda
      rootVolume: true
      ebs:
        volumeSize: 100Gi
        volumeType: gp3
        iops: 10000
        encrypted: true
        kmsKeyID: "1234abcd-12ab-34cd-56ef-1234567890ab"
        deleteOnTermination: true
        throughput: 125
    - deviceName: /dev/xvdb
      ebs:
        snapshotID: snap-0123456789abcdef0
  instanceStorePolicy: RAID0
  userData: |
    echo "Hello world"
  detailedMonitoring: true
  associatePublicIPAddress: true
  context: ctx-1234
status:
  instanceProfile: my-cluster_1234
  subnets:
    - {id: subnet-0a462d98193ff9fac, zone: us-east-2b, zoneID: use2-az2}
  securityGroups:
    - {id: sg-041513b454818610b, name: ClusterSharedNodeSecurityGroup}
  amis:
    - id: ami-01234567890123456
      name: custom-ami-amd64
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  conditions:
    - {type: Ready, status: "True", reason: Ready, lastTransitionTime: "2024-08-01T10:00:00Z"}
)";

// Seed 001's interface list in v1 form, plus the per-interface selectors of its later iteration.
// Karpenter v1.14 requires networkCardIndex, deviceIndex and interfaceType on every interface,
// and allows only interface and efa-only (aws/karpenter-provider-aws v1.14.1
// pkg/apis/v1/ec2nodeclass.go NetworkInterface).
constexpr std::string_view kEfaNodeClass = R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: efa}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@v20240807}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  networkInterfaces:
    - networkCardIndex: 1
      deviceIndex: 1
      interfaceType: efa-only
      deleteOnTermination: true
    - networkCardIndex: 0
      deviceIndex: 0
      description: primary
      interfaceType: interface
      ipv4PrefixCount: 1
      ipv6PrefixCount: 1
    - networkCardIndex: 0
      deviceIndex: 1
      interfaceType: interface
      description: storage network
      subnetSelectorTerms: [{tags: {tier: storage}}]
      securityGroupSelectorTerms: [{id: sg-0abc123}]
)";

TEST(EC2NodeClassDecodeTest, AcceptsTheDocumentedNodeClassWithEveryField) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kDocsNodeClass);
  EXPECT_EQ(nc.spec.kubelet->evictionSoftGracePeriod.at("nodefs.available").toString(), "1m30s");
  EXPECT_EQ(nc.spec.blockDeviceMappings[0].ebs->volumeSize->toString(), "100Gi");
  EXPECT_EQ(nc.spec.metadataOptions->httpPutResponseHopLimit, 2);
  EXPECT_EQ(nc.spec.amiSelectorTerms.size(), 4u);
  EXPECT_EQ(nc.spec.associatePublicIPAddress, true);
  EXPECT_EQ(nc.status.amis[0].requirements[0].key, "kubernetes.io/arch");
}

TEST(EC2NodeClassDecodeTest, AcceptsSeedNetworkInterfacesWithPerInterfaceSelectors) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kEfaNodeClass);
  ASSERT_EQ(nc.spec.networkInterfaces.size(), 3u);
  const NetworkInterface& primary = nc.spec.networkInterfaces[1];
  EXPECT_EQ(primary.deviceIndex, 0);
  EXPECT_EQ(primary.networkCardIndex, 0);
  EXPECT_EQ(primary.ipv4PrefixCount, 1);
  EXPECT_EQ(nc.spec.networkInterfaces[2].securityGroupSelectorTerms[0].id, "sg-0abc123");
}

TEST(EC2NodeClassDefaultsTest, FillsSecureMetadataOptions) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kEfaNodeClass);
  ASSERT_TRUE(nc.spec.metadataOptions.has_value());
  const MetadataOptions& m = *nc.spec.metadataOptions;
  EXPECT_EQ(m.httpEndpoint, "enabled");
  EXPECT_EQ(m.httpProtocolIPv6, "disabled");
  EXPECT_EQ(m.httpPutResponseHopLimit, 1);
  EXPECT_EQ(m.httpTokens, "required");
}

// Upstream has no defaults for an interface's keys: they are required (the CRD's
// networkInterfaces.items.required), so a missing one is refused rather than filled in.
TEST(EC2NodeClassDecodeTest, RequiresEveryInterfaceKey) {
  FieldErrors errs = testing::decodeOne(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: keys}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{id: subnet-0123}]
  securityGroupSelectorTerms: [{id: sg-0123}]
  networkInterfaces: [{description: primary}]
)")
                         .errors;
  std::set<std::string> paths;
  for (const FieldError& e : errs) {
    paths.insert(e.path);
  }
  EXPECT_TRUE(paths.contains("spec.networkInterfaces[0].networkCardIndex"));
  EXPECT_TRUE(paths.contains("spec.networkInterfaces[0].deviceIndex"));
  EXPECT_TRUE(paths.contains("spec.networkInterfaces[0].interfaceType"));
}

TEST(EC2NodeClassDefaultsTest, CompletesPartialMetadataOptions) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: partial}
spec:
  role: KarpenterNodeRole
  amiFamily: Custom
  amiSelectorTerms: [{id: ami-0123}]
  subnetSelectorTerms: [{id: subnet-0123}]
  securityGroupSelectorTerms: [{id: sg-0123}]
  metadataOptions: {httpTokens: optional}
)");
  EXPECT_EQ(nc.spec.metadataOptions->httpTokens, "optional");
  EXPECT_EQ(nc.spec.metadataOptions->httpEndpoint, "enabled");
  EXPECT_EQ(nc.spec.metadataOptions->httpPutResponseHopLimit, 1);
}

TEST(EC2NodeClassDecodeTest, AcceptsCustomAmiFamilyWithAnAlias) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: custom}
spec:
  instanceProfile: KarpenterNodeInstanceProfile
  amiFamily: Custom
  amiSelectorTerms: [{alias: bottlerocket@v1.20.3}]
  subnetSelectorTerms: [{id: subnet-0123}]
  securityGroupSelectorTerms: [{id: sg-0123}]
  associatePublicIPAddress: false
)");
  EXPECT_EQ(nc.spec.amiSelectorTerms[0].alias, "bottlerocket@v1.20.3");
  EXPECT_TRUE(nc.spec.role.empty());
}

TEST(EC2NodeClassCodecTest, RoundTripsThroughJson) {
  for (std::string_view yaml : {kDocsNodeClass, kEfaNodeClass}) {
    EC2NodeClass nc = decodeValid<EC2NodeClass>(yaml);
    Json encoded = toJson(nc);
    EC2NodeClass again;
    ASSERT_EQ(decodeJson(encoded, again), FieldErrors{});
    EXPECT_EQ(toJson(again), encoded);
  }
}

TEST(EC2NodeClassHashTest, SortsInterfacesByCardAndDeviceIndex) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kEfaNodeClass);
  const uint64_t base = hashOf(nc.spec);
  EC2NodeClass reordered = nc;
  std::reverse(reordered.spec.networkInterfaces.begin(), reordered.spec.networkInterfaces.end());
  EXPECT_EQ(hashOf(reordered.spec), base);
}

TEST(EC2NodeClassHashTest, IgnoresDeleteOnTerminationAndSelectors) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kEfaNodeClass);
  const uint64_t base = hashOf(nc.spec);
  EC2NodeClass changed = nc;
  changed.spec.networkInterfaces[0].deleteOnTermination = false;
  changed.spec.networkInterfaces[2].subnetSelectorTerms[0].tags["tier"] = "other";
  changed.spec.subnetSelectorTerms[0].id = "subnet-0fff";
  changed.spec.amiSelectorTerms[0].alias = "al2023@latest";
  EXPECT_EQ(hashOf(changed.spec), base);
}

TEST(EC2NodeClassHashTest, ChangesWithStaticInterfaceFields) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kEfaNodeClass);
  const uint64_t base = hashOf(nc.spec);
  EC2NodeClass changed = nc;
  changed.spec.networkInterfaces[1].ipv4PrefixCount = 2;
  EXPECT_NE(hashOf(changed.spec), base);
  changed = nc;
  changed.spec.networkInterfaces[2].description = "other";
  EXPECT_NE(hashOf(changed.spec), base);
}

// The fields Karpenter v1.14 added take part in the static hash as upstream's hashstructure tags
// say (aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go): connectionTracking,
// cpuOptions, placementGroupSelector and volumeInitializationRate do; ipPrefixCount and the
// capacity reservation terms (hash:"ignore") do not. Unset, none of them moves an old hash.
TEST(EC2NodeClassHashTest, CoversTheV114FieldsAsUpstreamDoes) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kDocsNodeClass);
  const uint64_t base = hashOf(nc.spec);
  auto changes = [&](const std::function<void(EC2NodeClassSpec&)>& edit) {
    EC2NodeClass changed = nc;
    edit(changed.spec);
    return hashOf(changed.spec) != base;
  };
  EXPECT_TRUE(changes([](auto& s) { s.connectionTracking = ConnectionTracking{{}, {}, 45}; }));
  EXPECT_TRUE(changes([](auto& s) { s.cpuOptions = CPUOptions{"enabled"}; }));
  EXPECT_TRUE(changes([](auto& s) {
    s.placementGroupSelector = PlacementGroupSelector{"pg", {}};
  }));
  EXPECT_TRUE(
      changes([](auto& s) { s.blockDeviceMappings[1].ebs->volumeInitializationRate = 200; }));
  EXPECT_FALSE(changes([](auto& s) { s.ipPrefixCount = 3; }));
  EXPECT_FALSE(changes(
      [](auto& s) { s.capacityReservationSelectorTerms[0].instanceMatchCriteria = "targeted"; }));
}

// Every v1.14 field reads back as it was written.
TEST(EC2NodeClassCodecTest, RoundTripsTheV114Fields) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: v114}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: windows2025@latest}]
  amiFamily: Windows2025
  subnetSelectorTerms: [{id: subnet-0123}]
  securityGroupSelectorTerms: [{id: sg-0123}]
  capacityReservationSelectorTerms: [{instanceMatchCriteria: open}]
  placementGroupSelector: {name: training}
  ipPrefixCount: 2
  connectionTracking: {tcpEstablishedTimeout: 600, udpStreamTimeout: 90, udpTimeout: 30}
  cpuOptions: {nestedVirtualization: enabled}
  blockDeviceMappings:
    - deviceName: /dev/xvdb
      ebs: {snapshotID: snap-0123, volumeInitializationRate: 150}
)");
  Json spec = toJson(nc)["spec"];
  EXPECT_EQ(spec["capacityReservationSelectorTerms"][0]["instanceMatchCriteria"], "open");
  EXPECT_EQ(spec["placementGroupSelector"]["name"], "training");
  EXPECT_EQ(spec["ipPrefixCount"], 2);
  EXPECT_EQ(spec["connectionTracking"]["udpStreamTimeout"], 90);
  EXPECT_EQ(spec["cpuOptions"]["nestedVirtualization"], "enabled");
  EXPECT_EQ(spec["blockDeviceMappings"][0]["ebs"]["volumeInitializationRate"], 150);
  EXPECT_EQ(spec["amiFamily"], "Windows2025");
}

}  // namespace
}  // namespace nodewright::api::karpenter
