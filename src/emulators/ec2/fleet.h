#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aws/error.h"
#include "emulators/ec2/action.h"
#include "emulators/engine/resource_store.h"

// CreateFleet with Type=instant: the fleet tries its pools (launch template configs × overrides)
// in the order of its allocation strategies, on-demand first, then spot, each pool through the
// shared launch path; a pool that fails adds an errorSet item and the fleet falls through to
// the next. The stored fleet keeps the response, so a retry with the same ClientToken returns
// the same fleet and instances; like EC2's instant fleets it is 'deleted' once created.
namespace nodewright::emulators::ec2 {

// A pool's launch template and overrides as the response echoes them.
struct FleetOverrides {
  std::optional<std::string> instanceType;
  std::optional<std::string> maxPrice;
  std::optional<std::string> subnetId;
  std::optional<std::string> availabilityZone;
  std::optional<double> weightedCapacity;
  std::optional<double> priority;
  std::optional<std::string> imageId;
};

struct FleetPoolSpec {
  std::string launchTemplateId;
  std::string launchTemplateName;
  std::string version;  // as requested; empty when the request gave none
  FleetOverrides overrides;
};

struct FleetError {
  FleetPoolSpec pool;
  std::string lifecycle;  // "on-demand", "spot"
  std::string code;
  std::string message;
};

struct FleetInstances {
  FleetPoolSpec pool;
  std::string lifecycle;
  std::string instanceType;
  std::vector<std::string> instanceIds;
};

struct FleetAttributes : Attributes {
  std::string type = "instant";
  int64_t totalTargetCapacity = 0;
  std::vector<FleetError> errors;
  std::vector<FleetInstances> instances;
};

// The CreateFleet action (bucket kMutating).
aws::ApiResult<std::string> createFleet(ActionContext& ctx);

}  // namespace nodewright::emulators::ec2
