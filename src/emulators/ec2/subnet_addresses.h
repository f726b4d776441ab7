#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "emulators/ec2/resources.h"
#include "emulators/engine/resource_store.h"

// The private IPv4 addresses launches take from subnets and terminations give back.
// SubnetAttributes::availableIps is the count EC2 reports and the limit launches check; the
// concrete addresses (so no two interfaces share one, and node names stay unique) are tracked
// in AddressedSubnet, which the first launch into a subnet stores in place of its
// SubnetAttributes. Both change in one ResourceStore::update, so a check and a take are atomic.
namespace nodewright::emulators::ec2 {

// A subnet's attributes plus which host offsets of its CIDR block are in use.
struct AddressedSubnet : SubnetAttributes {
  std::vector<uint64_t> taken;  // one bit per host offset of cidrBlock
  uint32_t cursor = 0;          // where the next search starts, so freed addresses rest a while
};

// What one instance needs from one subnet: per interface, single addresses (primary plus
// secondary) and /28 prefixes.
struct InterfaceNeed {
  int64_t singles = 0;
  int64_t prefixes = 0;
};

// The addresses one interface got, as host offsets into the subnet's CIDR block.
struct InterfaceAddresses {
  std::vector<uint32_t> singles;   // the first is the primary address
  std::vector<uint32_t> prefixes;  // first offset of each 16-address block
};

// Every address an instance holds in one subnet; what termination returns.
struct AddressLease {
  std::string subnetId;
  int64_t count = 0;              // what availableIps went down by
  std::vector<uint32_t> offsets;  // every host offset taken, prefixes expanded
};

struct SubnetGrant {
  std::vector<std::vector<InterfaceAddresses>> instances;  // [instance][interface]
  std::vector<AddressLease> leases;                        // one per instance
  std::string cidrBlock;
};

// Takes addresses for as many instances as the subnet holds, at most `maxCount`; fails with
// InsufficientFreeAddressesInSubnet (EC2's message) when fewer than `minCount` fit.
// InvalidSubnetID.NotFound when the subnet is gone.
aws::ApiResult<SubnetGrant> takeAddresses(ResourceStore& store, const std::string& subnetId,
                                          const std::vector<InterfaceNeed>& perInstance,
                                          int64_t minCount, int64_t maxCount);

// Gives a lease back; a subnet that no longer exists is ignored.
void releaseAddresses(ResourceStore& store, const AddressLease& lease);

// "10.0.3.17" for host offset 17 of "10.0.3.0/24"; "10.0.3.16/28" for a prefix.
std::string formatAddress(std::string_view cidrBlock, uint32_t offset);
std::string formatPrefix(std::string_view cidrBlock, uint32_t offset);

}  // namespace nodewright::emulators::ec2
