#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "aws/error.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/launch_template.h"

// EC2 placement groups: CreatePlacementGroup, DescribePlacementGroups and DeletePlacementGroup,
// and the group a launch's Placement names (GroupId or GroupName, with PartitionNumber for a
// partition group).
namespace nodewright::emulators::ec2 {

struct Placement {
  std::string groupId;
  std::string groupName;
  std::optional<int64_t> partitionNumber;  // partition groups only
};

// The group `data`'s Placement names; nullopt when it names none. Errors, as EC2 names them:
// InvalidPlacementGroup.Unknown for a group that does not exist, InvalidParameterValue for a
// partition number outside the group's partitions or given for a group without partitions.
// A partition group without a partition number places the instance in its emptiest partition.
aws::ApiResult<std::optional<Placement>> placementOf(ActionContext& ctx,
                                                     const LaunchTemplateData& data);

}  // namespace nodewright::emulators::ec2
