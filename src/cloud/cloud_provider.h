#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "cloud/drift.h"
#include "cloud/instance_type.h"
#include "core/error.h"
#include "core/time.h"

// The one seam between the controllers and a cloud (DESIGN.md): controllers never include a
// cloud's headers. Implementations: cloud/aws (EC2). Errors are values; the codes that matter
// to callers are NotFound (the machine is gone), InsufficientCapacity (nothing could be
// launched for the claim now), Throttled, and Invalid (the claim or its node class cannot be
// launched as written, e.g. no subnet resolves).
namespace nodewright::cloud {

// A machine the cloud runs for a NodeClaim, as the controllers record it.
struct Machine {
  std::string providerID;     // "aws:///us-east-1a/i-0123456789abcdef0"
  std::string nodeClaimName;  // from the ownership tags; empty when the machine has none
  std::string nodePoolName;
  std::string instanceType;
  std::string zone;
  std::string capacityType;  // kCapacityTypeOnDemand | kCapacityTypeSpot
  std::string imageID;
  std::string state;  // the cloud's word: "pending", "running", "shutting-down", ...
  core::TimePoint launchTime;
  // Labels the node of this machine carries: the instance type's labels plus zone, capacity
  // type and instance type.
  std::map<std::string, std::string> labels;
  ResourceList capacity;
  ResourceList allocatable;
  // Annotations the claim takes at launch: the node class's drift hash and its version, and the
  // static fields it covered (api/karpenter/hashing.h).
  std::map<std::string, std::string> annotations;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;

  // "aws".
  virtual std::string name() const = 0;

  // Launches one machine for `claim`, choosing among the instance types, zones and capacity
  // types its requirements allow, cheapest first. Idempotent per claim (name and uid): a retry
  // after a lost answer finds the machine launched before instead of launching a second one.
  virtual core::Result<Machine> create(const api::karpenter::NodeClaim& claim) = 0;

  // NotFound when the machine is terminated or unknown.
  virtual core::Result<Machine> get(std::string_view providerID) = 0;
  // Every machine this cluster owns that is not terminated.
  virtual core::Result<std::vector<Machine>> list() = 0;
  // Starts termination; NotFound when the machine is already gone.
  virtual core::Status remove(std::string_view providerID) = 0;

  // The instance types `pool` may launch, with offerings and prices, and the ones its node
  // class rules out with the reason.
  virtual core::Result<InstanceTypes> instanceTypes(const api::karpenter::NodePool& pool) = 0;

  // The cloud's drift checks of a launched claim, in order: its node class's static fields (by
  // the hash stamped at launch; a claim stamped by another hash version is not drifted), then
  // what the node class's selectors resolve to now (image, subnet, security groups, and each
  // network interface's). An error means the checks could not be made (node class missing,
  // machine unknown, cloud unreachable); the caller retries and leaves the claim as it was.
  virtual core::Result<std::vector<DriftCheck>> isDrifted(
      const api::karpenter::NodeClaim& claim) = 0;
};

}  // namespace nodewright::cloud
