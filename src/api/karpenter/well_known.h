#pragma once

// The names nodewright shares with Karpenter v1 (karpenter.sh API group) for nodes and
// NodeClaims, unchanged so dashboards, kubectl habits and other tools keep working. The
// controllers, the scheduler and the node agent all use these.
namespace nodewright::api::karpenter {

inline constexpr const char* kTerminationFinalizer = "karpenter.sh/termination";

inline constexpr const char* kNodePoolLabel = "karpenter.sh/nodepool";
inline constexpr const char* kRegisteredLabel = "karpenter.sh/registered";
inline constexpr const char* kInitializedLabel = "karpenter.sh/initialized";

// Set by the node's bootstrap (registerWithTaints) and lifted at registration, so nothing
// schedules before the node's labels and taints are synced.
inline constexpr const char* kUnregisteredTaintKey = "karpenter.sh/unregistered";
// Placed on a node being drained, so the pods evicted from it do not come back.
inline constexpr const char* kDisruptedTaintKey = "karpenter.sh/disrupted";

// NodeClaim condition types; Ready is the root, true once the three others are.
inline constexpr const char* kLaunched = "Launched";
inline constexpr const char* kRegistered = "Registered";
inline constexpr const char* kInitialized = "Initialized";
inline constexpr const char* kReady = "Ready";

// Pods kubelet runs from a static manifest; the API server only mirrors them.
inline constexpr const char* kMirrorPodAnnotation = "kubernetes.io/config.mirror";

inline constexpr const char* kNodeClaimApiVersion = "karpenter.sh/v1";

}  // namespace nodewright::api::karpenter
