#include <gtest/gtest.h>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/registry.h"

namespace nodewright::api::karpenter {
namespace {

std::vector<std::string> columnNames(const KindInfo& info) {
  std::vector<std::string> out;
  for (const PrinterColumn& c : info.printerColumns) {
    out.push_back(c.name);
  }
  return out;
}

TEST(KarpenterRegistryTest, RegistersClusterScopedKindsWithUpstreamNames) {
  const Registry& r = builtinRegistry();
  const KindInfo* pool = r.find("karpenter.sh/v1", "NodePool");
  const KindInfo* claim = r.find("karpenter.sh/v1", "NodeClaim");
  const KindInfo* nodeClass = r.find("karpenter.k8s.aws/v1", "EC2NodeClass");
  ASSERT_NE(pool, nullptr);
  ASSERT_NE(claim, nullptr);
  ASSERT_NE(nodeClass, nullptr);
  EXPECT_EQ(pool->type, &reflect::opsFor<NodePool>());
  EXPECT_EQ(claim->type, &reflect::opsFor<NodeClaim>());
  EXPECT_EQ(nodeClass->type, &reflect::opsFor<EC2NodeClass>());
  for (const KindInfo* k : {pool, claim, nodeClass}) {
    EXPECT_FALSE(k->namespaced) << k->kind;
    EXPECT_TRUE(k->statusSubresource) << k->kind;
    EXPECT_EQ(k->categories, std::vector<std::string>{"karpenter"}) << k->kind;
  }
  EXPECT_EQ(pool->plural, "nodepools");
  EXPECT_EQ(nodeClass->plural, "ec2nodeclasses");
  EXPECT_EQ(nodeClass->shortNames, (std::vector<std::string>{"ec2nc", "ec2ncs"}));
  EXPECT_EQ(r.lookup("ec2nc"), nodeClass);
  EXPECT_EQ(r.lookup("nodepools"), pool);
}

TEST(KarpenterRegistryTest, HasTheUpstreamPrinterColumns) {
  const Registry& r = builtinRegistry();
  EXPECT_EQ(
      columnNames(*r.find("karpenter.sh/v1", "NodePool")),
      (std::vector<std::string>{"NodeClass", "Nodes", "Ready", "Age", "Weight", "CPU", "Memory"}));
  EXPECT_EQ(columnNames(*r.find("karpenter.sh/v1", "NodeClaim")),
            (std::vector<std::string>{"Type", "Capacity", "Zone", "Node", "Ready", "Age", "ImageID",
                                      "ID", "NodePool", "NodeClass"}));
  EXPECT_EQ(columnNames(*r.find("karpenter.k8s.aws/v1", "EC2NodeClass")),
            (std::vector<std::string>{"Ready", "Age", "Role"}));
  EXPECT_EQ(r.find("karpenter.sh/v1", "NodePool")->printerColumns[4].priority, 1);
}

}  // namespace
}  // namespace nodewright::api::karpenter
