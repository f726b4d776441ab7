#include <set>

#include <fmt/format.h>

#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws::nodeclass {
namespace {

// One problem per group that is not in the VPC of some subnet it would launch into.
void checkVpcs(const std::vector<sdk::Subnet>& subnets,
               const std::vector<sdk::SecurityGroup>& groups, const std::string& path,
               std::vector<Problem>& problems) {
  for (const sdk::SecurityGroup& group : groups) {
    for (const sdk::Subnet& subnet : subnets) {
      if (group.vpcId != subnet.vpcId) {
        problems.push_back(
            {"SecurityGroupVPCMismatch",
             fmt::format("{}: security group {} is in {}, but subnet {} is in {}", path,
                         group.groupId, group.vpcId, subnet.subnetId, subnet.vpcId)});
        break;
      }
    }
  }
}

}  // namespace

std::vector<Problem> validateNetwork(const ResolvedNodeClass& resolved) {
  std::vector<Problem> problems;
  checkVpcs(resolved.subnets, resolved.securityGroups, "spec.securityGroupSelectorTerms", problems);
  std::set<std::string> zones;
  for (const sdk::Subnet& subnet : resolved.subnets) {
    zones.insert(subnet.availabilityZone);
  }
  for (size_t i = 0; i < resolved.interfaces.size(); ++i) {
    const ResolvedInterface& ni = resolved.interfaces[i];
    const std::string at = fmt::format("spec.networkInterfaces[{}]", i);
    if (ni.ownSubnets || ni.ownSecurityGroups) {
      checkVpcs(
          ni.subnets, ni.securityGroups,
          at + (ni.ownSecurityGroups ? ".securityGroupSelectorTerms" : ".subnetSelectorTerms"),
          problems);
    }
    if (!ni.ownSubnets) {
      continue;
    }
    bool shared = false;
    for (const sdk::Subnet& subnet : ni.subnets) {
      shared = shared || zones.contains(subnet.availabilityZone);
    }
    if (!shared) {
      problems.push_back({"InterfaceZoneMismatch",
                          fmt::format("{}.subnetSelectorTerms: no selected subnet is in a zone of "
                                      "the subnets of spec.subnetSelectorTerms ({})",
                                      at, fmt::join(zones, ", "))});
    }
  }
  return problems;
}

}  // namespace nodewright::cloud::aws::nodeclass
