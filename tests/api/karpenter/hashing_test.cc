#include "api/karpenter/hashing.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/karpenter/decode.h"
#include "api/reflect/diff.h"

namespace nodewright::api::karpenter {
namespace {

using testing::decodeValid;

constexpr std::string_view kNodePool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    metadata:
      labels: {team: web}
      annotations: {example.com/owner: web}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      taints: [{key: dedicated, value: web, effect: NoSchedule}]
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      expireAfter: 720h
      terminationGracePeriod: 48h
      kubelet: {maxPods: 110}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets: [{nodes: 10%}]
  limits: {cpu: "1000"}
  weight: 10
)";

constexpr std::string_view kNodeClass = R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: dev}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: dev}}]
  userData: |
    #!/bin/bash
    echo hello
  tags: {team: web}
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 100Gi, volumeType: gp3, encrypted: true}
  networkInterfaces:
    - {networkCardIndex: 0, deviceIndex: 0, interfaceType: interface, description: primary,
       deleteOnTermination: true}
    - {networkCardIndex: 0, deviceIndex: 1, interfaceType: interface, description: storage}
)";

HashPolicy salted(uint64_t salt) {
  HashPolicy p = defaultHashPolicy();
  p.salt = salt;
  return p;
}

TEST(HashPolicyTest, DefaultIsVersionNw1WithoutSalt) {
  EXPECT_EQ(defaultHashPolicy().version, "nw1");
  EXPECT_EQ(defaultHashPolicy().salt, 0u);
}

TEST(HashPolicyTest, UnsaltedHashesAreTheStaticHashes) {
  NodePool pool = decodeValid<NodePool>(kNodePool);
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kNodeClass);
  EXPECT_EQ(nodePoolHash(pool, defaultHashPolicy()), hashString(hashOf(pool.spec.template_)));
  EXPECT_EQ(nodeClassHash(nc, defaultHashPolicy()), hashString(hashOf(nc.spec)));
}

TEST(HashPolicyTest, SaltChangesEveryHash) {
  NodePool pool = decodeValid<NodePool>(kNodePool);
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kNodeClass);
  NodePool minimal;
  EC2NodeClass emptyClass;
  for (uint64_t salt : {1ull, 2ull, 0xdeadbeefull}) {
    EXPECT_NE(nodePoolHash(pool, salted(salt)), nodePoolHash(pool, defaultHashPolicy()));
    EXPECT_NE(nodePoolHash(minimal, salted(salt)), nodePoolHash(minimal, defaultHashPolicy()));
    EXPECT_NE(nodeClassHash(nc, salted(salt)), nodeClassHash(nc, defaultHashPolicy()));
    EXPECT_NE(nodeClassHash(emptyClass, salted(salt)),
              nodeClassHash(emptyClass, defaultHashPolicy()));
  }
  EXPECT_NE(nodePoolHash(pool, salted(1)), nodePoolHash(pool, salted(2)));
  // Deterministic: the same policy gives the same hash.
  EXPECT_EQ(nodePoolHash(pool, salted(7)), nodePoolHash(pool, salted(7)));
}

TEST(HashStampTest, WritesHashVersionAndSnapshotForTheNodePool) {
  NodePool pool = decodeValid<NodePool>(kNodePool);
  HashPolicy policy = salted(3);
  policy.version = "test-v9";
  std::map<std::string, std::string> annotations{{"keep", "me"}};
  stampNodePool(pool, policy, annotations);
  EXPECT_EQ(annotations, (std::map<std::string, std::string>{
                             {"keep", "me"},
                             {kNodePoolHashAnnotation, nodePoolHash(pool, policy)},
                             {kNodePoolHashVersionAnnotation, "test-v9"},
                             {kNodePoolStaticAnnotation, dumpJson(staticJson(pool.spec.template_))},
                         }));
  // The snapshot leaves the dynamic requirements out.
  EXPECT_EQ(annotations[kNodePoolStaticAnnotation].find("capacity-type"), std::string::npos);
  EXPECT_NE(annotations[kNodePoolStaticAnnotation].find("\"expireAfter\":\"720h0m0s\""),
            std::string::npos);
}

TEST(HashStampTest, WritesHashVersionAndSnapshotForTheNodeClass) {
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kNodeClass);
  std::map<std::string, std::string> annotations;
  stampNodeClass(nc, defaultHashPolicy(), annotations);
  EXPECT_EQ(annotations, (std::map<std::string, std::string>{
                             {kNodeClassHashAnnotation, nodeClassHash(nc, defaultHashPolicy())},
                             {kNodeClassHashVersionAnnotation, "nw1"},
                             {kNodeClassStaticAnnotation, dumpJson(staticJson(nc.spec))},
                         }));
  const std::string& snapshot = annotations[kNodeClassStaticAnnotation];
  EXPECT_EQ(snapshot.find("deleteOnTermination"), std::string::npos);
  EXPECT_EQ(snapshot.find("SelectorTerms"), std::string::npos);
  // userData may hold secrets: the snapshot keeps a digest of it, never the script.
  EXPECT_EQ(snapshot.find("echo hello"), std::string::npos);
  EXPECT_NE(snapshot.find("\"userData\":\"redacted sha256:"), std::string::npos) << snapshot;
}

// What a claim was launched with decodes back, so a later change can be named field by field.
TEST(HashStampTest, StaticSnapshotsDecodeBack) {
  NodePool pool = decodeValid<NodePool>(kNodePool);
  EC2NodeClass nc = decodeValid<EC2NodeClass>(kNodeClass);
  std::map<std::string, std::string> annotations;
  stampNodePool(pool, defaultHashPolicy(), annotations);
  stampNodeClass(nc, defaultHashPolicy(), annotations);

  NodePool launched;
  ASSERT_EQ(decodeJson(Json::parse(annotations[kNodePoolStaticAnnotation]), launched.spec.template_,
                       DecodeOptions{.strict = false}),
            FieldErrors{});
  EXPECT_EQ(nodePoolHash(launched, defaultHashPolicy()), annotations[kNodePoolHashAnnotation]);
  EXPECT_TRUE(staticDiff(launched.spec.template_, pool.spec.template_).empty());

  EC2NodeClass launchedClass;
  ASSERT_EQ(decodeJson(Json::parse(annotations[kNodeClassStaticAnnotation]), launchedClass.spec,
                       DecodeOptions{.strict = false}),
            FieldErrors{});
  EXPECT_EQ(nodeClassHash(launchedClass, defaultHashPolicy()),
            annotations[kNodeClassHashAnnotation]);

  nc.spec.networkInterfaces[1].description = "fast storage";
  nc.spec.networkInterfaces[1].deleteOnTermination = true;
  std::vector<std::string> changes;
  for (const FieldDiff& d : staticDiff(launchedClass.spec, nc.spec, "spec")) {
    changes.push_back(describe(d));
  }
  EXPECT_EQ(changes, std::vector<std::string>{
                         "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1].description: "
                         "\"storage\" -> \"fast storage\""});
}

TEST(NodePoolHashTest, DriftsOnExpireAfterAndTerminationGracePeriod) {
  const NodePool pool = decodeValid<NodePool>(kNodePool);
  const std::string base = nodePoolHash(pool, defaultHashPolicy());

  NodePool expiring = pool;
  expiring.spec.template_.spec.expireAfter = core::Duration::never();
  EXPECT_NE(nodePoolHash(expiring, defaultHashPolicy()), base);
  std::vector<FieldDiff> diffs = staticDiff(pool.spec.template_, expiring.spec.template_);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(describe(diffs[0]), "spec.expireAfter: \"720h0m0s\" -> \"Never\"");

  NodePool graceful = pool;
  graceful.spec.template_.spec.terminationGracePeriod.reset();
  EXPECT_NE(nodePoolHash(graceful, defaultHashPolicy()), base);
  diffs = staticDiff(pool.spec.template_, graceful.spec.template_, "spec.template");
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(describe(diffs[0]),
            "spec.template.spec.terminationGracePeriod: \"48h0m0s\" -> <absent>");
}

TEST(NodePoolHashTest, IgnoresWeightLimitsAndDisruption) {
  const NodePool pool = decodeValid<NodePool>(kNodePool);
  const std::string base = nodePoolHash(pool, defaultHashPolicy());
  NodePool changed = pool;
  changed.spec.weight = 90;
  changed.spec.limits["memory"] = core::Quantity::fromInt(1 << 30);
  changed.spec.limits.erase("cpu");
  changed.spec.disruption.consolidationPolicy = "WhenEmpty";
  changed.spec.disruption.consolidateAfter = core::Duration::never();
  changed.spec.disruption.budgets.clear();
  changed.metadata.labels["new"] = "label";
  EXPECT_EQ(nodePoolHash(changed, defaultHashPolicy()), base);
  // Requirements drift by compatibility, not by hash.
  changed.spec.template_.spec.requirements.clear();
  EXPECT_EQ(nodePoolHash(changed, defaultHashPolicy()), base);
}

TEST(NodeClassHashTest, IgnoresSelectorsAndDeleteOnTermination) {
  const EC2NodeClass nc = decodeValid<EC2NodeClass>(kNodeClass);
  const std::string base = nodeClassHash(nc, defaultHashPolicy());
  EC2NodeClass changed = nc;
  changed.spec.subnetSelectorTerms[0].id = "subnet-1";
  changed.spec.amiSelectorTerms[0].alias = "al2023@v20240807";
  changed.spec.networkInterfaces[0].deleteOnTermination = false;
  changed.metadata.annotations["x"] = "y";
  EXPECT_EQ(nodeClassHash(changed, defaultHashPolicy()), base);
  changed.spec.userData = "#!/bin/bash\necho bye\n";
  EXPECT_NE(nodeClassHash(changed, defaultHashPolicy()), base);
}

}  // namespace
}  // namespace nodewright::api::karpenter
