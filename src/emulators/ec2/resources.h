#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "emulators/ec2/catalog.h"
#include "emulators/engine/resource_store.h"

// The EC2 resources the emulator keeps in the engine's ResourceStore: their type names there and
// their attributes. Launch templates, instances and fleets define theirs next to their actions.
namespace nodewright::emulators::ec2 {

namespace kind {
inline constexpr std::string_view kVpc = "vpc";
inline constexpr std::string_view kSubnet = "subnet";
inline constexpr std::string_view kSecurityGroup = "security-group";
inline constexpr std::string_view kImage = "image";
inline constexpr std::string_view kLaunchTemplate = "launch-template";
inline constexpr std::string_view kInstance = "instance";
inline constexpr std::string_view kFleet = "fleet";
inline constexpr std::string_view kCapacityReservation = "capacity-reservation";
inline constexpr std::string_view kPlacementGroup = "placement-group";
}  // namespace kind

struct VpcAttributes : Attributes {
  std::string cidrBlock;
  std::string ipv6CidrBlock;  // the Amazon-provided /56; empty: IPv4 only
  bool isDefault = false;
};

// availableIps changes as launches take addresses and terminations return them; the store
// swaps in a new SubnetAttributes under its lock (ResourceStore::update), so a check and a take
// are one step.
struct SubnetAttributes : Attributes {
  std::string vpcId;
  std::string zone;    // "us-east-1a"
  std::string zoneId;  // "use1-az1"
  std::string cidrBlock;
  std::string ipv6CidrBlock;  // empty: IPv4 only
  int64_t availableIps = 0;
  bool mapPublicIpOnLaunch = false;
};

struct SecurityGroupAttributes : Attributes {
  std::string name;
  std::string description;
  std::string vpcId;
  // EC2 gives a new group an egress rule for all IPv4 traffic and, when its VPC has an IPv6
  // block, one for all IPv6 traffic.
  bool ipv6Egress = false;
};

struct ImageAttributes : Attributes {
  std::string name;
  std::string description;
  std::string ownerId;     // "137112412989"
  std::string ownerAlias;  // "amazon"; empty for the account's own images
  Architecture architecture = Architecture::X86_64;
  std::string creationDate;  // "2024-11-15T00:00:00.000Z"
  std::optional<std::string> deprecationTime;
  std::string platformDetails = "Linux/UNIX";
  std::string rootDeviceName = "/dev/xvda";
  std::string bootMode;  // "uefi", "legacy-bios", "uefi-preferred"; empty: not set
};

// An On-Demand Capacity Reservation (or a capacity block). availableInstanceCount falls as
// instances launch into it and rises as they terminate; the store swaps in new attributes under
// its lock (ResourceStore::update), so a check and a take are one step. The resource's state is
// "active" or "cancelled"; one past its endDate shows as "expired" (capacity_reservations.h).
struct CapacityReservationAttributes : Attributes {
  std::string instanceType;
  std::string instancePlatform = "Linux/UNIX";
  std::string zone;
  std::string zoneId;
  std::string tenancy = "default";
  int64_t totalInstanceCount = 0;
  int64_t availableInstanceCount = 0;
  std::string instanceMatchCriteria = "open";  // or "targeted"
  std::string reservationType = "default";     // or "capacity-block"
  bool interruptible = false;
  std::string ownerId;
  std::optional<std::string> endDate;  // RFC 3339; none: unlimited
};

// A placement group: the store's state is "available" (EC2 creates one at once) until
// DeletePlacementGroup retires it "deleted".
struct PlacementGroupAttributes : Attributes {
  std::string name;
  std::string strategy;        // "cluster", "partition", "spread"
  int64_t partitionCount = 0;  // partition only
  std::string spreadLevel;     // spread only: "rack" (EC2's default) or "host"
};

}  // namespace nodewright::emulators::ec2
