#pragma once

#include <algorithm>
#include <array>
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
// Carried by the types of a Windows node class only (the Server build): Karpenter gives every
// other type DoesNotExist, so a pod that asks for a build never lands on Linux.
inline constexpr const char* kWindowsBuild = "node.kubernetes.io/windows-build";
// Karpenter offers every type in both tenancies (instance-tenancy In [default, dedicated]) and
// launches in the one the claim allows, default first, so no type carries it as a label: a
// requirement on it allows every type or none (tenancyAllowed).
inline constexpr const char* kInstanceTenancy = "karpenter.k8s.aws/instance-tenancy";
inline constexpr std::array<std::string_view, 2> kTenancies = {"default", "dedicated"};
// The placement group of a node class that has one (every type of it carries the id), and the
// partition of a partition group an instance was placed in.
inline constexpr const char* kPlacementGroupId = "karpenter.k8s.aws/placement-group-id";
inline constexpr const char* kPlacementGroupPartition =
    "karpenter.k8s.aws/placement-group-partition";

// Whether a requirement on kInstanceTenancy, given as "does it allow this value", admits one of
// the tenancies every type is offered in.
template <class Allows>
bool tenancyAllowed(Allows&& allows) {
  return std::any_of(kTenancies.begin(), kTenancies.end(),
                     [&](std::string_view t) { return allows(t); });
}

// Labels every instance type answers for, by carrying them or by not having what they describe
// (a type without a GPU has no instance-gpu-name): a requirement on one that a type lacks is
// evaluated as on a node without the label, as Karpenter's DoesNotExist requirements do. Other
// keys a type lacks (karpenter.sh/nodepool, a NodePool's own labels) do not restrict it.
inline bool definedByInstanceType(std::string_view key) {
  return key == kArch || key == kOs || key == kInstanceType || key == kWindowsBuild ||
         key.starts_with("karpenter.k8s.aws/instance-") ||
         // Karpenter's offerings carry these only for a node class with a placement group: the
         // types of one carry the id, and no type the partition (nodewright offers no partition
         // domains yet), so In on it finds none.
         key == kPlacementGroupId || key == kPlacementGroupPartition;
}

}  // namespace nodewright::cloud::labels
