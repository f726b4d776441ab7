#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aws/error.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/launch_template.h"

// The one launch path of the emulator, shared by RunInstances and each pool of CreateFleet:
// resolve the image, subnet and security groups from the store, validate as EC2 does, take
// capacity from the fault pools and addresses from the subnets, and create the instances in
// state pending, due to run after the latency model's launch time.
namespace nodewright::emulators::ec2 {

struct LaunchPlan {
  // The request's launch fields layered over the template's (overlay()).
  LaunchTemplateData data;
  std::optional<ResolvedTemplate> launchTemplate;
  // RunInstances SubnetId or a fleet override's; empty: the primary interface's subnet, else a
  // default subnet (in data.availabilityZone when set).
  std::string subnetId;
  std::string lifecycle = "on-demand";  // or "spot"
  int64_t minCount = 1;
  int64_t maxCount = 1;
  // RunInstances' ClientToken: one reservation per token while it is stored.
  std::string clientToken;
  std::string fleetId;  // set for fleet launches; tags the instances aws:ec2:fleet-id
  // Set by launchInstances when the instances run in a capacity reservation.
  std::string capacityReservationId;
  // Set by launchInstances when data's Placement names a placement group (placementOf).
  std::string placementGroupId;
  std::string placementGroupName;
  std::optional<int64_t> partitionNumber;
};

struct LaunchOutcome {
  std::string reservationId;
  std::vector<Resource> instances;  // in launch index order
  bool created = true;              // false: the reservation of an earlier request, same token
};

// Launches between plan.minCount and plan.maxCount instances, or none with EC2's error:
// validateLaunch()'s rules, InsufficientInstanceCapacity when the pool has fewer than minCount,
// InsufficientFreeAddressesInSubnet, takeReservedCapacity()'s errors. A launch that runs in a
// capacity reservation takes its capacity from the reservation, not from the fault pools.
// Idempotent per plan.clientToken.
aws::ApiResult<LaunchOutcome> launchInstances(ActionContext& ctx, const LaunchPlan& plan);

// EC2's InsufficientInstanceCapacity for a pool: the on-demand message names the other zones of
// the world; spot has its own.
aws::ApiError insufficientCapacityError(const World& world, const std::string& instanceType,
                                        const std::string& zone, const std::string& lifecycle);

// The instances of a stored reservation, in launch index order (those already removed are
// left out).
std::vector<Resource> reservationInstances(ResourceStore& store, const Resource& reservation);

struct TerminateResult {
  Resource instance;  // after the change
  std::string previousState;
};

// Moves pending and running instances to shutting-down (terminated after the latency model's
// time, then visible for an hour of emulated time) and gives their addresses back, exactly
// once however many requests race. Instances already going or gone are reported as they are;
// absent ones are skipped. Retires a reservation once all its instances are going.
std::vector<TerminateResult> terminateInstances(ActionContext& ctx,
                                                const std::vector<std::string>& ids);

}  // namespace nodewright::emulators::ec2
