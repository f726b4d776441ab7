#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/reflect/int_or_string.h"

// How a MachineDeployment spreads its replicas over its MachineSets, as Kubernetes' Deployment
// controller does for ReplicaSets (CAPI's rolling.go and ondelete.go follow it). Pure: the
// controller gathers the numbers, this decides, the controller writes.
namespace nodewright::controllers::capi {

struct SetState {
  std::string name;
  int32_t replicas = 0;   // spec.replicas
  int32_t machines = 0;   // Machines not being deleted
  int32_t available = 0;  // of those, available; never counted above `replicas`
};

struct RolloutInput {
  int32_t desired = 0;
  bool onDelete = false;  // OnDelete instead of RollingUpdate
  int32_t maxSurge = 1;
  int32_t maxUnavailable = 0;
  SetState newSet;                // the MachineSet of the current template
  std::vector<SetState> oldSets;  // oldest first
};

// The replicas each MachineSet should have now: `newSet` first, then `oldSets` in order.
//  RollingUpdate: the new set grows while all sets together stay within desired + maxSurge;
//  old sets shrink first by their unavailable machines, then by as many available ones as keep
//  desired - maxUnavailable available in total. Availability comes from machines, not from
//  spec: a machine that is only asked for is not available.
//  OnDelete: old sets shrink only as their machines are deleted by someone else; the new set
//  takes up the rest.
std::vector<int32_t> planRollout(const RolloutInput& input);

// maxSurge / maxUnavailable as a count of `desired`: "25%" rounds up for surge and down for
// unavailable, as Kubernetes does; both zero would never progress, so unavailable becomes 1.
struct Bounds {
  int32_t maxSurge = 1;
  int32_t maxUnavailable = 0;
};
Bounds resolveBounds(const std::optional<api::IntOrString>& maxSurge,
                     const std::optional<api::IntOrString>& maxUnavailable, int32_t desired);

}  // namespace nodewright::controllers::capi
