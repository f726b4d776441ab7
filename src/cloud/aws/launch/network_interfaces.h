#pragma once

#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/sdk.h"
#include "core/error.h"

// Seed 001: an EC2NodeClass's spec.networkInterfaces as launch-template NetworkInterfaces.
// Every listed interface carries all nine of the seed's fields as the user set them, the node
// class's security groups (or its own, when it has selectors), and its own subnet when it has
// subnet selectors and the launch zone is known. The instance-type filter (which types can
// carry these interfaces) lives with the instance types; this only builds and validates.
namespace nodewright::cloud::aws {

struct InterfaceOptions {
  // EFA devices the pods asked for (vpc.amazonaws.com/efa); used only when the node class
  // lists no interfaces, as Karpenter does.
  int efaCount = 0;
  // The zone the launch is pinned to; empty while it is not chosen. An interface with its own
  // subnet selectors gets that zone's subnet only when this is set.
  std::string zone;
};

// The interfaces to launch with, sorted by (deviceIndex, networkCardIndex); empty when the node
// class lists none, asks for no EFA and leaves associatePublicIPAddress and connectionTracking
// unset (then the template names its security groups itself). spec.connectionTracking reaches
// every interface but efa-only ones, as Karpenter v1.14 sends it. An unset deviceIndex or
// networkCardIndex is 0 (networkinterface/slot.h); "interface" is EC2's default type and is left
// out.
//
// Invalid, naming the field path (spec.networkInterfaces[1].networkCardIndex), when EC2 would
// reject the list: an unknown interfaceType, a negative index or prefix count, two interfaces
// on one (networkCardIndex, deviceIndex), a public IP on a launch with several interfaces, no
// security group, or no subnet of an interface's own in the chosen zone.
core::Result<std::vector<sdk::LaunchTemplateNetworkInterface>> buildNetworkInterfaces(
    const api::karpenter::EC2NodeClassSpec& spec, const ResolvedNodeClass& resolved,
    const InterfaceOptions& options);

// True when some interface picks its own subnets: its template is then zonal (one per zone),
// since a launch template names a subnet and a subnet lives in one zone.
bool interfacesPinSubnets(const api::karpenter::EC2NodeClassSpec& spec,
                          const ResolvedNodeClass& resolved);

}  // namespace nodewright::cloud::aws
