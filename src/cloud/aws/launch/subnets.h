#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/karpenter/nodeclaim.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"

// Which subnet a launch uses in each zone: the node class's resolved subnets, the zones the
// claim allows, and the most free addresses.
namespace nodewright::cloud::aws {

// The subnet with the most free addresses among `subnets` in `zone`; nullptr when none is.
// Ties go to the lower subnet id, so the choice is stable.
const sdk::Subnet* roomiestSubnet(const std::vector<sdk::Subnet>& subnets, const std::string& zone);

// The roomiest subnet of each zone the claim allows (topology.kubernetes.io/zone), by zone.
std::map<std::string, std::string> subnetByZone(const std::vector<sdk::Subnet>& subnets,
                                                const api::karpenter::NodeClaim& claim);

}  // namespace nodewright::cloud::aws
