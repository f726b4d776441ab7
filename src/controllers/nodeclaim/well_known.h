#pragma once

#include "api/karpenter/well_known.h"

// Karpenter's well-known names (api/karpenter/well_known.h), unqualified in the NodeClaim
// controllers.
namespace nodewright::controllers::nodeclaim {

using api::karpenter::kDisruptedTaintKey;
using api::karpenter::kInitialized;
using api::karpenter::kInitializedLabel;
using api::karpenter::kLaunched;
using api::karpenter::kMirrorPodAnnotation;
using api::karpenter::kNodeClaimApiVersion;
using api::karpenter::kNodePoolLabel;
using api::karpenter::kReady;
using api::karpenter::kRegistered;
using api::karpenter::kRegisteredLabel;
using api::karpenter::kTerminationFinalizer;
using api::karpenter::kUnregisteredTaintKey;

// On a NodeClaim: when its node's drain ends at the latest (RFC 3339), ahead of what the
// terminationGracePeriod allows. Node repair sets it to the time of the repair, so an unhealthy
// node is terminated without waiting for its pods.
inline constexpr const char* kTerminationTimestampAnnotation =
    "karpenter.sh/nodeclaim-termination-timestamp";

}  // namespace nodewright::controllers::nodeclaim
