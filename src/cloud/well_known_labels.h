#pragma once

// The node labels whose values come from the cloud rather than from a NodePool: an instance
// type carries them, or an offering (zone, capacity type) does. Upstream names, unchanged.
namespace nodewright::cloud::labels {

inline constexpr const char* kZone = "topology.kubernetes.io/zone";
inline constexpr const char* kCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kInstanceType = "node.kubernetes.io/instance-type";
inline constexpr const char* kArch = "kubernetes.io/arch";
inline constexpr const char* kOs = "kubernetes.io/os";
inline constexpr const char* kNodePool = "karpenter.sh/nodepool";

}  // namespace nodewright::cloud::labels
