#pragma once

#include <optional>
#include <string>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"

// Whether an instance type can run a node class's spec.cpuOptions, as Karpenter v1.14 decides
// it (aws/karpenter-provider-aws pkg/providers/instancetype/compatibility): EC2 rejects a launch
// that enables nested virtualization on a type without it, so such types are left out before
// any launch. Pure functions; thread-safe.
namespace nodewright::cloud::aws {

// True when spec.cpuOptions.nestedVirtualization is "enabled".
bool requiresNestedVirtualization(const api::karpenter::EC2NodeClassSpec& spec);

// "m5.large does not support nested virtualization" when the node class enables it and the
// type's ProcessorInfo.SupportedFeatures lacks "nested-virtualization"; nullopt otherwise.
std::optional<std::string> cpuOptionsIncompatibility(const sdk::InstanceTypeInfo& type,
                                                     const api::karpenter::EC2NodeClassSpec& spec);

}  // namespace nodewright::cloud::aws
