#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emulators/ec2/catalog.h"

namespace nodewright::emulators::ec2 {

// The caller resolves every ID of a launch against its store and passes what it found; an ID
// it could not find is passed with exists = false, so validation stays a pure function.
struct ImageRef {
  std::string id;
  Architecture architecture = Architecture::X86_64;
  bool exists = true;
};

struct SubnetRef {
  std::string id;
  std::string vpcId;
  int64_t availableIps = 0;  // EC2's AvailableIpAddressCount (IPv4)
  std::string zone;
  bool exists = true;
};

struct SecurityGroupRef {
  std::string id;
  std::string vpcId;
  bool exists = true;
};

// One entry of RunInstances NetworkInterface.N / a launch template's NetworkInterfaces.
struct NetworkInterfaceSpec {
  int deviceIndex = 0;
  int networkCardIndex = 0;
  std::string interfaceType = "interface";  // "interface", "efa" or "efa-only"
  // Set when the request names the parameter at all: EC2 rejects even `false` when several
  // interfaces are launched.
  std::optional<bool> associatePublicIpAddress;
  std::optional<bool> associateCarrierIpAddress;
  std::optional<SubnetRef> subnet;       // nullopt: the launch's subnet
  std::vector<SecurityGroupRef> groups;  // empty: the launch's security groups
  int ipv4PrefixCount = 0;               // each takes a /28, 16 addresses
  int ipv6PrefixCount = 0;
  int ipv4AddressCount = 0;  // secondary private IPv4 addresses; the primary one is implied
  int ipv6AddressCount = 0;
  bool deleteOnTermination = true;
};

struct LaunchRequest {
  std::string instanceType;
  ImageRef image;
  SubnetRef subnet;  // used by every interface that names none
  std::vector<SecurityGroupRef> securityGroups;
  // Empty: one primary interface (card 0, device 0) in `subnet` with `securityGroups`.
  std::vector<NetworkInterfaceSpec> networkInterfaces;
  int count = 1;  // instances launched with this configuration
};

// An EC2 error as it goes on the wire: Code and Message of the Query protocol's error XML.
struct LaunchError {
  std::string code;
  std::string message;
};

// Returns the first rule of EC2 that the launch breaks, or nullopt when EC2 would accept it.
// Checked in order: count, instance type, image and architecture, network interface layout
// (type, public IP, duplicates, card index, primary, per-card limits, EFA), subnets and
// security groups, free addresses. The codes and messages follow real EC2 responses where
// they are known; launch_validation.cc cites the source of each and marks the guesses.
std::optional<LaunchError> validateLaunch(const LaunchRequest& request, const Catalog& catalog);

// IPv4 addresses one interface takes from its subnet: its primary and secondary addresses
// plus 16 per prefix; none for efa-only, which has no IP address.
int64_t ipv4AddressesNeeded(const NetworkInterfaceSpec& spec);

}  // namespace nodewright::emulators::ec2
