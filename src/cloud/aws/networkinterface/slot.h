#pragma once

#include <compare>

#include "api/karpenter/ec2nodeclass.h"

// Where one spec.networkInterfaces entry attaches: (networkCardIndex, deviceIndex). The one
// reading of unset indexes that the instance-type filter, the launch template, the node class
// status and drift all share, so an interface is never numbered two ways.
namespace nodewright::cloud::aws {

struct InterfaceSlot {
  int card = 0;
  int device = 0;
  auto operator<=>(const InterfaceSlot&) const = default;
};

// An unset networkCardIndex or deviceIndex is 0. Why 0 and not the entry's list position:
//   - the EC2NodeClass schema defaults both to 0 (api/karpenter/ec2nodeclass.cc), and the API
//     server applies defaults on every write, so a stored node class always says 0; reading
//     "unset" any other way only changes objects that bypassed defaulting (built in code), which
//     would then launch differently from the same object after a round trip through the API;
//   - validation already calls an entry with no deviceIndex the primary interface
//     (ec2nodeclass_rules.cc), and the list is a map keyed by (networkCardIndex, deviceIndex);
//   - seed 001 (/work/shared/seeds/001_*) shows `deviceIndex: 0` as the field's default, as it
//     says outright for networkCardIndex ("The default is network card index 0");
//   - EC2 itself has no positional default: DeviceIndex is per attachment, 0 is the primary
//     (LaunchTemplateInstanceNetworkInterfaceSpecificationRequest), and upstream Karpenter
//     (aws/karpenter-provider-aws, launchtemplate generateNetworkInterfaces) always sets it.
// Two entries both without deviceIndex on one card are therefore the same slot, a duplicate
// that validation and the launch template builder refuse.
inline InterfaceSlot slotOf(const api::karpenter::NetworkInterface& ni) {
  return {ni.networkCardIndex.value_or(0), ni.deviceIndex.value_or(0)};
}

}  // namespace nodewright::cloud::aws
