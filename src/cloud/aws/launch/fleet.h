#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/common.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/ec2_types.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/launch/tags.h"
#include "cloud/aws/sdk.h"
#include "cloud/instance_type.h"

// The pure half of a launch: which capacity type, which (type, subnet) pools, and the
// CreateFleet request that offers them, from a NodeClaim and the instance types the caller
// already filtered and sorted. No EC2 calls, so every rule here is tested without a peer.
namespace nodewright::cloud::aws {

// Karpenter's cap on the types of one fleet request (EC2 allows more overrides, but the
// request must stay small and the cheapest types are the ones that matter).
inline constexpr size_t kMaxInstanceTypes = 60;

// Labels on a claim.
inline constexpr const char* kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kLabelZone = "topology.kubernetes.io/zone";
inline constexpr const char* kResourceEfa = "vpc.amazonaws.com/efa";

// True when the claim's requirements admit `value` for `key`; a key it does not mention
// admits everything, except karpenter.sh/capacity-type, which defaults to on-demand as
// Karpenter's NodePool template does.
bool claimAllows(const api::karpenter::NodeClaim& claim, std::string_view key,
                 std::string_view value);

// Whether the offering of `type` for (zone, capacityType) can take a launch now: offered,
// available, not marked out of capacity lately, and allowed by the claim.
bool offeringUsable(const InstanceType& type, const std::string& zone,
                    const std::string& capacityType, const api::karpenter::NodeClaim& claim,
                    const UnavailableOfferings& unavailable);

// One launch template and the types that launch with it.
struct TemplateGroup {
  std::string launchTemplateName;
  std::string imageId;
  // Set when the template is zonal (its interfaces pin subnets): its overrides are in this
  // zone only, and in `subnetId` when the primary interface pins one.
  std::string zone;
  std::string subnetId;
  std::vector<const InstanceType*> types;  // cheapest first
};

// Spot when the claim allows it and some type has a usable spot offering in a zone with a
// subnet; otherwise on-demand (Karpenter's choice: spot is cheaper whenever it is there).
std::string chooseCapacityType(const std::vector<const InstanceType*>& types,
                               const api::karpenter::NodeClaim& claim,
                               const std::map<std::string, std::string>& subnetByZone,
                               const UnavailableOfferings& unavailable);

// Drops spot types dearer than the cheapest usable on-demand offering when the claim allows
// both, as Karpenter does: on-demand would serve such a claim for less.
std::vector<const InstanceType*> withoutDearSpot(const std::vector<const InstanceType*>& types,
                                                 const api::karpenter::NodeClaim& claim,
                                                 const UnavailableOfferings& unavailable);

// One LaunchTemplateConfig per group, its overrides the group's types x the zones (one subnet
// each, `subnetByZone`) whose offering is usable for `capacityType`; groups left with no
// override are left out. Types keep their order, so the cheapest pools come first.
std::vector<sdk::FleetLaunchTemplateConfig> fleetConfigs(
    const std::vector<TemplateGroup>& groups, const std::string& capacityType,
    const api::karpenter::NodeClaim& claim, const std::map<std::string, std::string>& subnetByZone,
    const UnavailableOfferings& unavailable);

// At most 64 characters, from the claim's uid (its name when it has none) and the attempt
// (0 first, bumped after an attempt that launched nothing), so a retry after a lost answer
// replays the same request instead of launching again.
std::string fleetClientToken(const api::karpenter::NodeClaim& claim, int attempt);

// The errors Karpenter reads as "this pool has no capacity now": the pool is marked
// unavailable and the next launch tries others.
bool isCapacityError(std::string_view code);

}  // namespace nodewright::cloud::aws
