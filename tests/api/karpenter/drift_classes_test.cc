#include <map>
#include <string>

#include <gtest/gtest.h>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodepool.h"
#include "api/reflect/operations.h"

// The drift class of each field drives hashing (seed 002, seed 001): these pin the classes the
// design names, so a reclassification is a deliberate change.
namespace nodewright::api::karpenter {
namespace {

using reflect::Drift;

std::map<std::string, Drift> driftByPath(const reflect::TypeOps& type) {
  std::map<std::string, Drift> out;
  for (const reflect::Leaf& leaf : reflect::leaves(type)) {
    out[leaf.path] = leaf.drift;
  }
  return out;
}

TEST(KarpenterDriftClassTest, NodePoolFollowsSeed002) {
  auto drift = driftByPath(reflect::opsFor<NodePool>());
  const std::map<std::string, Drift> expected = {
      {"spec.weight", Drift::Behavioral},
      {"spec.limits[*]", Drift::Behavioral},
      {"spec.disruption.consolidateAfter", Drift::Behavioral},
      {"spec.disruption.budgets[].nodes", Drift::Behavioral},
      // Karpenter v1 drifts on these two.
      {"spec.template.spec.expireAfter", Drift::Static},
      {"spec.template.spec.terminationGracePeriod", Drift::Static},
      {"spec.template.spec.requirements[].key", Drift::Dynamic},
      {"spec.template.spec.requirements[].minValues", Drift::Dynamic},
      {"spec.template.spec.taints[].key", Drift::Static},
      {"spec.template.spec.startupTaints[].effect", Drift::Static},
      {"spec.template.spec.nodeClassRef.name", Drift::Static},
      {"spec.template.spec.kubelet.maxPods", Drift::Static},
      {"spec.template.metadata.labels[*]", Drift::Static},
  };
  for (const auto& [path, cls] : expected) {
    ASSERT_TRUE(drift.contains(path)) << path;
    EXPECT_EQ(drift.at(path), cls) << path;
  }
}

TEST(KarpenterDriftClassTest, EC2NodeClassFollowsSeed001) {
  auto drift = driftByPath(reflect::opsFor<EC2NodeClass>());
  const std::map<std::string, Drift> expected = {
      {"spec.subnetSelectorTerms[].id", Drift::Dynamic},
      {"spec.securityGroupSelectorTerms[].name", Drift::Dynamic},
      {"spec.amiSelectorTerms[].alias", Drift::Dynamic},
      {"spec.networkInterfaces[].subnetSelectorTerms[].tags[*]", Drift::Dynamic},
      {"spec.networkInterfaces[].securityGroupSelectorTerms[].id", Drift::Dynamic},
      {"spec.networkInterfaces[].deleteOnTermination", Drift::Behavioral},
      {"spec.networkInterfaces[].associatePublicIPAddress", Drift::Static},
      {"spec.networkInterfaces[].associateCarrierIPAddress", Drift::Static},
      {"spec.networkInterfaces[].description", Drift::Static},
      {"spec.networkInterfaces[].deviceIndex", Drift::Static},
      {"spec.networkInterfaces[].networkCardIndex", Drift::Static},
      {"spec.networkInterfaces[].interfaceType", Drift::Static},
      {"spec.networkInterfaces[].ipv4PrefixCount", Drift::Static},
      {"spec.networkInterfaces[].ipv6PrefixCount", Drift::Static},
      {"spec.userData", Drift::Static},
      {"spec.metadataOptions.httpTokens", Drift::Static},
      {"spec.blockDeviceMappings[].ebs.volumeSize", Drift::Static},
      {"spec.role", Drift::Static},
      {"spec.tags[*]", Drift::Static},
  };
  for (const auto& [path, cls] : expected) {
    ASSERT_TRUE(drift.contains(path)) << path;
    EXPECT_EQ(drift.at(path), cls) << path;
  }
}

TEST(KarpenterDriftClassTest, NetworkInterfacesAreAMapKeyedByCardThenDevice) {
  const reflect::FieldDesc* f =
      describe(reflect::Tag<EC2NodeClassSpec>{}).find("networkInterfaces");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->listType, reflect::ListType::Map);
  EXPECT_EQ(f->listMapKeys, (std::vector<std::string>{"networkCardIndex", "deviceIndex"}));
}

}  // namespace
}  // namespace nodewright::api::karpenter
