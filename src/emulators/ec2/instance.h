#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "emulators/ec2/catalog.h"
#include "emulators/ec2/launch_template.h"
#include "emulators/ec2/subnet_addresses.h"
#include "emulators/engine/resource_store.h"

// EC2 instances and reservations as the store keeps them, and their rendering as botocore's
// Instance and Reservation shapes.
namespace nodewright::emulators::ec2 {

namespace kind {
// One RunInstances call (or one pool of a fleet): holds the client token and the instances.
inline constexpr std::string_view kReservation = "reservation";
}  // namespace kind

// Instance states with EC2's codes: pending 0, running 16, shutting-down 32, terminated 48,
// stopping 64, stopped 80.
namespace instance_state {
inline constexpr std::string_view kPending = "pending";
inline constexpr std::string_view kRunning = "running";
inline constexpr std::string_view kShuttingDown = "shutting-down";
inline constexpr std::string_view kTerminated = "terminated";
int code(std::string_view state);
}  // namespace instance_state

// Latency model operations (Engine::dueAfter).
inline constexpr std::string_view kLaunchOp = "ec2:RunInstances:pending->running";
inline constexpr std::string_view kTerminateOp = "ec2:TerminateInstances:shutting-down->terminated";

struct GroupRef {
  std::string id;
  std::string name;
};

struct InstanceInterface {
  std::string id;  // "eni-..."
  std::string subnetId;
  std::string vpcId;
  int64_t deviceIndex = 0;
  int64_t networkCardIndex = 0;
  std::string interfaceType = "interface";
  std::string description;
  std::string privateIp;  // empty for efa-only, which has no IP address
  std::vector<std::string> secondaryIps;
  std::vector<std::string> ipv4Prefixes;  // "10.0.1.16/28"
  std::optional<std::string> publicIp;
  std::vector<GroupRef> groups;
  bool deleteOnTermination = true;
  std::string macAddress;
};

// The attachment of `ni` to its instance as DescribeInstances shows it and
// DetachNetworkInterface names it: "eni-attach-" and the interface id's hex digits.
std::string attachmentIdOf(const InstanceInterface& ni);

struct InstanceVolume {
  std::string deviceName;
  std::string volumeId;
  bool deleteOnTermination = true;
};

struct InstanceAttributes : Attributes {
  std::string instanceType;
  std::string imageId;
  Architecture architecture = Architecture::X86_64;
  std::string zone;
  std::string zoneId;
  std::string subnetId;
  std::string vpcId;
  std::string privateIp;  // the primary interface's
  std::optional<std::string> publicIp;
  std::string dnsSuffix;                 // "ec2.internal", "eu-west-1.compute.internal"
  std::string hostnameType = "ip-name";  // or "resource-name": the name is the instance id
  std::vector<GroupRef> groups;
  std::vector<InstanceInterface> interfaces;
  std::vector<InstanceVolume> volumes;
  std::string rootDeviceName = "/dev/xvda";
  std::string launchTemplateId;  // empty: launched without a template
  std::string launchTemplateName;
  int64_t launchTemplateVersion = 0;
  // Or "spot", "capacity-block", "interruptible-capacity-reservation".
  std::string lifecycle = "on-demand";
  std::string spotInstanceRequestId;
  std::string reservationId;
  std::string ownerId;
  std::string fleetId;
  std::string clientToken;
  int64_t amiLaunchIndex = 0;
  MetadataOptionsSpec metadataOptions;  // EC2's defaults filled in
  std::optional<std::string> iamInstanceProfileArn;
  std::string iamInstanceProfileId;
  std::string keyName;
  bool monitoring = false;
  bool ebsOptimized = false;
  std::string tenancy = "default";
  // The placement group it runs in (id and name); empty: none. Partition groups give each
  // instance a partition (1-based).
  std::string placementGroupId;
  std::string placementGroupName;
  std::optional<int64_t> partitionNumber;
  std::string capacityReservationPreference = "open";
  // The capacity reservation the instance runs in; empty: none. Given back at termination,
  // once, with the leases.
  std::string capacityReservationId;
  std::string platformDetails = "Linux/UNIX";
  // The subnet addresses the instance holds; given back once, at termination.
  std::vector<AddressLease> leases;
  bool leasesReleased = false;

  std::string privateDnsName(std::string_view instanceId) const;
};

struct ReservationAttributes : Attributes {
  std::string ownerId;
  std::string requesterId;  // set for instances a service launched (fleets)
  std::vector<std::string> instanceIds;
};

// One <item> of instancesSet: botocore's Instance, with the instance's current state. A
// terminated instance has lost its addresses, interfaces and groups, as on EC2.
void renderInstance(pugi::xml_node item, const Resource& instance);

// The members of botocore's Reservation (an <item> of reservationSet, or RunInstances'
// response): reservationId, ownerId, requesterId for fleet launches, groupSet, instancesSet.
void renderReservation(pugi::xml_node parent, std::string_view reservationId,
                       std::string_view ownerId, const std::vector<Resource>& instances);

// <instanceState><code/><name/></instanceState> (or another element name).
void renderState(pugi::xml_node parent, const char* element, std::string_view state);

// An instance's values for DescribeInstances' filter names (tags are matched elsewhere); empty
// for names it has no value for.
std::vector<std::string> instanceFilterValues(const Resource& instance, std::string_view name);

}  // namespace nodewright::emulators::ec2
