#pragma once

#include <optional>
#include <string>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"

// What registration writes onto a Node and what initialization waits for, as pure functions of
// the Node and its NodeClaim (Karpenter's registration.syncNode and initialization checks).
namespace nodewright::controllers::nodeclaim {

// Syncs the claim onto `node`: its labels plus karpenter.sh/registered, its taints, its startup
// taints (only at the first registration: kubelet-side agents lift them afterwards), the
// controller ownerReference and the termination finalizer; lifts karpenter.sh/unregistered.
// Returns whether anything changed.
bool syncNode(api::corev1::Node& node, const api::karpenter::NodeClaim& claim);

struct Blocker {
  std::string reason;
  std::string message;
};

// Why `node` is not initialized yet: not Ready, a startup taint or a known ephemeral taint
// (not-ready, unreachable, uninitialized) is still on it, or an extended resource the claim
// asked for or its machine has is not advertised yet. nullopt once none holds.
std::optional<Blocker> initializationBlocker(const api::corev1::Node& node,
                                             const api::karpenter::NodeClaim& claim);

}  // namespace nodewright::controllers::nodeclaim
