// spec.cpuOptions against an instance type, as Karpenter v1.14's nested-virtualization check
// decides it (aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/compatibility).
#include "cloud/aws/instancetype/compatibility.h"

#include <gtest/gtest.h>

namespace nodewright::cloud::aws {
namespace {

sdk::InstanceTypeInfo type(std::vector<std::string> features) {
  sdk::InstanceTypeInfo t;
  t.instanceType = "c8i.large";
  t.processorFeatures = std::move(features);
  return t;
}

TEST(CpuOptionsCompatibilityTest, OnlyEnabledNestedVirtualizationNeedsTheFeature) {
  api::karpenter::EC2NodeClassSpec spec;
  EXPECT_FALSE(cpuOptionsIncompatibility(type({}), spec));
  spec.cpuOptions = api::karpenter::CPUOptions{};
  EXPECT_FALSE(cpuOptionsIncompatibility(type({}), spec));
  spec.cpuOptions->nestedVirtualization = "disabled";
  EXPECT_FALSE(requiresNestedVirtualization(spec));
  EXPECT_FALSE(cpuOptionsIncompatibility(type({}), spec));

  spec.cpuOptions->nestedVirtualization = "enabled";
  EXPECT_TRUE(requiresNestedVirtualization(spec));
  EXPECT_EQ(cpuOptionsIncompatibility(type({"amd-sev-snp"}), spec),
            "c8i.large does not support nested virtualization");
  EXPECT_FALSE(cpuOptionsIncompatibility(type({"amd-sev-snp", "nested-virtualization"}), spec));
}

}  // namespace
}  // namespace nodewright::cloud::aws
