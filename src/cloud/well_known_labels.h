#pragma once

#include <string_view>

#include "api/karpenter/well_known.h"

// The node labels whose values come from the cloud rather than from a NodePool: an instance
// type carries them, or an offering (zone, capacity type) does. Upstream names, unchanged.
namespace nodewright::cloud::labels {

inline constexpr const char* kZone = "topology.kubernetes.io/zone";
inline constexpr const char* kCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kInstanceType = "node.kubernetes.io/instance-type";
inline constexpr const char* kArch = "kubernetes.io/arch";
inline constexpr const char* kOs = "kubernetes.io/os";
inline constexpr const char* kNodePool = api::karpenter::kNodePoolLabel;

// Labels every instance type answers for, by carrying them or by not having what they describe
// (a type without a GPU has no instance-gpu-name): a requirement on one that a type lacks is
// evaluated as on a node without the label, as Karpenter's DoesNotExist requirements do. Other
// keys a type lacks (karpenter.sh/nodepool, a NodePool's own labels) do not restrict it.
inline bool definedByInstanceType(std::string_view key) {
  return key == kArch || key == kOs || key == kInstanceType ||
         key.starts_with("karpenter.k8s.aws/instance-") ||
         // Karpenter's offerings carry these only for a node class with a placement group,
         // which nodewright does not resolve yet: no type has them, so In finds none.
         key == "karpenter.k8s.aws/placement-group-id" ||
         key == "karpenter.k8s.aws/placement-group-partition";
}

}  // namespace nodewright::cloud::labels
