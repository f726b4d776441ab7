#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/capacityreservation/offerings.h"
#include "cloud/aws/launch/fleet.h"
#include "cloud/aws/launch/template_provider.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/instance_type.h"
#include "core/error.h"

// Launch planning, all in one place: from a claim, its node class and the instance types it
// may use, the subnet of each zone (subnets.h), the capacity type and the pools (fleet.h), one
// launch template per launch configuration (template_data.h, made to exist by
// template_provider.h) and the fleet's launch-template configs. The instance provider only
// sends what this plans and learns from the answer.
namespace nodewright::cloud::aws {

// What a launch starts from. The types are the ones the claim and its node class can use
// (already filtered, e.g. by the network-interface compatibility filter), cheapest first; only
// the first kMaxInstanceTypes are offered.
struct LaunchRequest {
  const api::karpenter::NodeClaim& claim;
  const api::karpenter::EC2NodeClass& nodeClass;
  const ResolvedNodeClass& resolved;
  const std::vector<const InstanceType*>& instanceTypes;
  // The node class's capacity reservations with their room now; a claim that allows the
  // `reserved` capacity type launches into them first.
  std::vector<UsableReservation> reservations{};
};

struct LaunchPlan {
  std::string capacityType;  // on-demand, spot or reserved
  // The fleet's DefaultTargetCapacityType: capacityType, or for reserved the reservations' kind
  // (fleetCapacityTypeOf).
  std::string fleetCapacityType;
  // For reserved: the reservation each (instance type, zone) launches into, one template each.
  std::vector<UsableReservation> reservations;
  std::map<std::string, std::string> subnetByZone;
  std::map<std::string, std::string> zoneBySubnet;
  std::vector<TemplateGroup> groups;  // one per launch template, with the types it launches
  std::vector<sdk::FleetLaunchTemplateConfig> configs;
  std::string tenancy;  // launchTenancy(claim), in every template's Placement
  // The node class's placement group and, for a partition group, the partition the claim asks
  // for (launchPartition), in every template's Placement.
  std::string placementGroupId;
  std::optional<int> placementPartition;
};

// The tenancy a claim launches in, as Karpenter v1.14's getTenancyType: "default" when the
// claim's karpenter.k8s.aws/instance-tenancy requirements allow it (or say nothing), else
// "dedicated" when they allow that, else "default".
std::string launchTenancy(const api::karpenter::NodeClaim& claim);

// The partition a claim launches into in a partition placement group, as Karpenter v1.14 picks
// it: the first, as strings sort, of the values its placement-group-partition requirement
// allows; nullopt when it has none (EC2 chooses).
std::optional<int> launchPartition(const api::karpenter::NodeClaim& claim);

// The plan, with its templates ensured. Errors:
//   Invalid               no subnet in a zone the claim allows, no resolved AMI runs on any of
//                         the types, or a template EC2 would reject (naming the field);
//   InsufficientCapacity  no usable offering of the types in the allowed zones;
//   others                from ensuring the templates.
core::Result<LaunchPlan> planLaunch(const LaunchRequest& request, LaunchTemplateProvider& templates,
                                    const UnavailableOfferings& unavailable);

}  // namespace nodewright::cloud::aws
