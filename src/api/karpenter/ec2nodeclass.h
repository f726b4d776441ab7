#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/common.h"

// karpenter.k8s.aws/v1 EC2NodeClass: how to launch an EC2 instance for a NodeClaim. Selector
// terms are dynamic (they drift by being resolved again); everything else drifts by hash,
// except a network interface's deleteOnTermination (seed 001).
namespace nodewright::api::karpenter {

// Selects subnets by tags, or one subnet by id.
struct SubnetSelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
};
const reflect::StructSchema& describe(reflect::Tag<SubnetSelectorTerm>);

// Selects security groups by tags or name, or one by id.
struct SecurityGroupSelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<SecurityGroupSelectorTerm>);

// Selects AMIs by alias (family@version), tags, id, name/owner or an SSM parameter.
struct AMISelectorTerm {
  std::string alias;
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
  std::string owner;
  std::string ssmParameter;
};
const reflect::StructSchema& describe(reflect::Tag<AMISelectorTerm>);

// Selects EC2 capacity reservations by tags, id or instance match criteria.
struct CapacityReservationSelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string ownerID;
  std::string instanceMatchCriteria;  // open | targeted
};
const reflect::StructSchema& describe(reflect::Tag<CapacityReservationSelectorTerm>);

// Selects one EC2 placement group, by name or by id.
struct PlacementGroupSelector {
  std::optional<std::string> name;
  std::optional<std::string> id;
};
const reflect::StructSchema& describe(reflect::Tag<PlacementGroupSelector>);

// Idle connection-tracking timeouts, in seconds, of the interfaces Karpenter launches.
struct ConnectionTracking {
  std::optional<int32_t> tcpEstablishedTimeout;
  std::optional<int32_t> udpStreamTimeout;
  std::optional<int32_t> udpTimeout;
};
const reflect::StructSchema& describe(reflect::Tag<ConnectionTracking>);

struct CPUOptions {
  std::optional<std::string> nestedVirtualization;  // enabled | disabled
};
const reflect::StructSchema& describe(reflect::Tag<CPUOptions>);

struct MetadataOptions {
  std::optional<std::string> httpEndpoint;      // enabled | disabled
  std::optional<std::string> httpProtocolIPv6;  // enabled | disabled
  std::optional<int64_t> httpPutResponseHopLimit;
  std::optional<std::string> httpTokens;  // required | optional
};
const reflect::StructSchema& describe(reflect::Tag<MetadataOptions>);

struct BlockDevice {
  std::optional<bool> deleteOnTermination;
  std::optional<bool> encrypted;
  std::optional<int64_t> iops;
  std::string kmsKeyID;
  std::string snapshotID;
  std::optional<int64_t> throughput;
  std::optional<int32_t> volumeInitializationRate;
  std::optional<core::Quantity> volumeSize;
  std::string volumeType;
};
const reflect::StructSchema& describe(reflect::Tag<BlockDevice>);

struct BlockDeviceMapping {
  std::string deviceName;
  std::optional<BlockDevice> ebs;
  bool rootVolume = false;
};
const reflect::StructSchema& describe(reflect::Tag<BlockDeviceMapping>);

// One launch-template network interface (seed 001's subset, plus per-interface selectors).
struct NetworkInterface {
  std::optional<bool> associateCarrierIPAddress;
  std::optional<bool> associatePublicIPAddress;
  std::optional<bool> deleteOnTermination;
  std::string description;
  std::optional<int32_t> deviceIndex;
  std::string interfaceType;  // interface | efa-only
  std::optional<int32_t> networkCardIndex;
  std::optional<int32_t> ipv4PrefixCount;
  std::optional<int32_t> ipv6PrefixCount;
  std::vector<SubnetSelectorTerm> subnetSelectorTerms;
  std::vector<SecurityGroupSelectorTerm> securityGroupSelectorTerms;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkInterface>);

struct EC2NodeClassSpec {
  std::vector<SubnetSelectorTerm> subnetSelectorTerms;
  std::vector<SecurityGroupSelectorTerm> securityGroupSelectorTerms;
  std::vector<CapacityReservationSelectorTerm> capacityReservationSelectorTerms;
  std::optional<PlacementGroupSelector> placementGroupSelector;
  std::optional<bool> associatePublicIPAddress;
  std::optional<int32_t> ipPrefixCount;
  std::vector<AMISelectorTerm> amiSelectorTerms;
  std::string amiFamily;
  std::optional<std::string> userData;
  std::string role;
  std::string instanceProfile;
  std::map<std::string, std::string> tags;
  std::optional<KubeletConfiguration> kubelet;
  std::vector<BlockDeviceMapping> blockDeviceMappings;
  std::string instanceStorePolicy;  // RAID0
  std::optional<bool> detailedMonitoring;
  std::optional<MetadataOptions> metadataOptions;
  std::optional<ConnectionTracking> connectionTracking;
  std::string context;
  std::optional<CPUOptions> cpuOptions;
  std::vector<NetworkInterface> networkInterfaces;
};
const reflect::StructSchema& describe(reflect::Tag<EC2NodeClassSpec>);

struct SubnetStatus {
  std::string id;
  std::string zone;
  std::string zoneID;
};
const reflect::StructSchema& describe(reflect::Tag<SubnetStatus>);

struct SecurityGroupStatus {
  std::string id;
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<SecurityGroupStatus>);

struct AMIStatus {
  std::string id;
  std::string name;
  std::vector<NodeSelectorRequirement> requirements;
  bool deprecated = false;
};
const reflect::StructSchema& describe(reflect::Tag<AMIStatus>);

// What one spec.networkInterfaces entry with selectors of its own resolved to, keyed like the
// spec's list (an unset deviceIndex or networkCardIndex is 0, the schema's default). A list is
// filled only for the selectors the entry has; the others use the node class's. Drift compares the
// instance's interface on the same (networkCardIndex, deviceIndex) against it.
struct NetworkInterfaceStatus {
  int32_t networkCardIndex = 0;
  int32_t deviceIndex = 0;
  std::vector<SubnetStatus> subnets;
  std::vector<SecurityGroupStatus> securityGroups;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkInterfaceStatus>);

// A capacity reservation the selectors matched, as EC2 describes it. `state` is "expiring" for a
// capacity block within EC2's reclaim window before its end (Karpenter: 40 minutes).
struct CapacityReservationStatus {
  std::string availabilityZone;
  std::optional<core::Time> endTime;
  std::string id;
  std::string instanceMatchCriteria;  // open | targeted
  std::string instanceType;
  std::string ownerID;
  std::string reservationType = "default";  // default | capacity-block
  bool interruptible = false;
  std::string state = "active";  // active | expiring
};
const reflect::StructSchema& describe(reflect::Tag<CapacityReservationStatus>);

struct EC2NodeClassStatus {
  std::vector<SubnetStatus> subnets;
  std::vector<SecurityGroupStatus> securityGroups;
  std::vector<CapacityReservationStatus> capacityReservations;
  std::vector<AMIStatus> amis;
  std::vector<NetworkInterfaceStatus> networkInterfaces;
  std::string instanceProfile;
  std::vector<Condition> conditions;
};
const reflect::StructSchema& describe(reflect::Tag<EC2NodeClassStatus>);

struct EC2NodeClass {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  EC2NodeClassSpec spec;
  EC2NodeClassStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<EC2NodeClass>);

}  // namespace nodewright::api::karpenter
