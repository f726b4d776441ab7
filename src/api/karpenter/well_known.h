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
// Set by the drift controller; its reason and message name what changed (seed 002).
inline constexpr const char* kDrifted = "Drifted";

// On a pod: its node is not disrupted voluntarily (drift, emptiness). On a node or NodeClaim:
// the node is not.
inline constexpr const char* kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
// On a NodeClaim being replaced: the disruption command in flight (reason, phase, replacements),
// so a restarted controller resumes it instead of starting another.
inline constexpr const char* kDisruptionAnnotation = "nodewright.sh/disruption";
// On a replacement NodeClaim: the NodeClaim it replaces.
inline constexpr const char* kReplacesAnnotation = "nodewright.sh/replaces";

// Pods kubelet runs from a static manifest; the API server only mirrors them.
inline constexpr const char* kMirrorPodAnnotation = "kubernetes.io/config.mirror";

inline constexpr const char* kNodeClaimApiVersion = "karpenter.sh/v1";

}  // namespace nodewright::api::karpenter
