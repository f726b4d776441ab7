#include "cloud/aws/launch/subnets.h"

#include "cloud/aws/launch/fleet.h"

namespace nodewright::cloud::aws {

const sdk::Subnet* roomiestSubnet(const std::vector<sdk::Subnet>& subnets,
                                  const std::string& zone) {
  const sdk::Subnet* best = nullptr;
  for (const sdk::Subnet& s : subnets) {
    if (s.availabilityZone != zone) {
      continue;
    }
    if (best == nullptr || s.availableIpAddressCount > best->availableIpAddressCount ||
        (s.availableIpAddressCount == best->availableIpAddressCount &&
         s.subnetId < best->subnetId)) {
      best = &s;
    }
  }
  return best;
}

std::map<std::string, std::string> subnetByZone(const std::vector<sdk::Subnet>& subnets,
                                                const api::karpenter::NodeClaim& claim) {
  std::map<std::string, std::string> out;
  for (const sdk::Subnet& s : subnets) {
    if (!out.contains(s.availabilityZone) && claimAllows(claim, kLabelZone, s.availabilityZone)) {
      out[s.availabilityZone] = roomiestSubnet(subnets, s.availabilityZone)->subnetId;
    }
  }
  return out;
}

}  // namespace nodewright::cloud::aws
