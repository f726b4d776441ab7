#include "cloud/aws/instancetype/compatibility.h"

#include <algorithm>

#include <fmt/format.h>

namespace nodewright::cloud::aws {

bool requiresNestedVirtualization(const api::karpenter::EC2NodeClassSpec& spec) {
  return spec.cpuOptions && spec.cpuOptions->nestedVirtualization == "enabled";
}

std::optional<std::string> cpuOptionsIncompatibility(const sdk::InstanceTypeInfo& type,
                                                     const api::karpenter::EC2NodeClassSpec& spec) {
  if (!requiresNestedVirtualization(spec)) {
    return std::nullopt;
  }
  const auto& features = type.processorFeatures;
  if (std::find(features.begin(), features.end(), "nested-virtualization") != features.end()) {
    return std::nullopt;
  }
  return fmt::format("{} does not support nested virtualization", type.instanceType);
}

}  // namespace nodewright::cloud::aws
