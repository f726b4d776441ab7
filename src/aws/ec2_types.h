#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

// The EC2 shapes the AWS provider reads and writes, as plain values: what Ec2Client parses from
// and serializes to the Query protocol (Version 2016-11-15). Field names follow EC2's
// documentation; an optional field is one EC2 may leave out.
namespace nodewright::aws {

using Tags = std::map<std::string, std::string>;

// Filter.N.Name / Filter.N.Value.M. Values may hold EC2's '*' and '?' wildcards.
struct Filter {
  std::string name;
  std::vector<std::string> values;
};

// DescribeInstanceTypes ------------------------------------------------------------------------

struct NetworkCardInfo {
  int index = 0;
  int maximumNetworkInterfaces = 0;
};

// One item of DescribeInstanceTypes. Counts EC2 leaves out are 0 and strings are empty.
struct InstanceTypeInfo {
  std::string instanceType;                      // "m5.large"
  std::vector<std::string> architectures;        // ProcessorInfo.SupportedArchitectures
  std::string cpuManufacturer;                   // ProcessorInfo.Manufacturer
  std::optional<double> sustainedClockSpeedGhz;  // ProcessorInfo.SustainedClockSpeedInGhz
  // ProcessorInfo.SupportedFeatures: "amd-sev-snp", "nested-virtualization".
  std::vector<std::string> processorFeatures;
  int defaultVCpus = 0;    // VCpuInfo.DefaultVCpus
  int64_t memoryMiB = 0;   // MemoryInfo.SizeInMiB
  std::string hypervisor;  // "nitro", "xen"; empty on bare metal
  bool bareMetal = false;
  std::vector<std::string> supportedUsageClasses;  // "on-demand", "spot"
  std::vector<std::string> supportedVirtualizationTypes;
  // NetworkInfo
  int maximumNetworkInterfaces = 0;
  int ipv4AddressesPerInterface = 0;
  int ipv6AddressesPerInterface = 0;
  bool ipv6Supported = false;
  int defaultNetworkCardIndex = 0;
  std::vector<NetworkCardInfo> networkCards;  // by index
  bool efaSupported = false;
  int maximumEfaInterfaces = 0;  // EfaInfo.MaximumEfaInterfaces
  bool encryptionInTransitSupported = false;
  std::optional<double> networkBaselineBandwidthGbps;  // sum of the cards' baselines
  std::string networkPerformance;                      // "Up to 10 Gigabit"
  // GpuInfo (summed over its Gpus items) and accelerators: the Neuron devices (Inferentia,
  // Trainium) of NeuronInfo, else the InferenceAcceleratorInfo ones (Qualcomm AI 100)
  int gpuCount = 0;
  std::string gpuManufacturer;
  std::string gpuName;
  int64_t gpuTotalMemoryMiB = 0;
  int acceleratorCount = 0;
  std::string acceleratorManufacturer;
  std::string acceleratorName;
  // NeuronInfo alone: devices summed over NeuronDevices, and the NeuronCores of the first
  // device kind (its Count times CoreInfo.Count), as Karpenter counts them.
  int neuronDeviceCount = 0;
  int neuronCoreCount = 0;
  // InstanceStorageInfo.TotalSizeInGB; 0 without instance storage
  int64_t instanceStorageGB = 0;
  bool nvmeInstanceStorage = false;
  std::optional<int64_t> ebsMaximumBandwidthMbps;  // EbsInfo.EbsOptimizedInfo

  // The card with this index, or nullptr.
  const NetworkCardInfo* card(int index) const;
};

struct InstanceTypeOffering {
  std::string instanceType;
  std::string location;  // the zone name, with LocationType availability-zone
};

// Networking ---------------------------------------------------------------------------------

struct AvailabilityZone {
  std::string zoneName;
  std::string zoneId;
  std::string state;  // "available"
};

struct Subnet {
  std::string subnetId;
  std::string vpcId;
  std::string availabilityZone;
  std::string availabilityZoneId;
  std::string cidrBlock;
  int64_t availableIpAddressCount = 0;
  bool mapPublicIpOnLaunch = false;
  Tags tags;
};

struct SecurityGroup {
  std::string groupId;
  std::string groupName;
  std::string vpcId;
  Tags tags;
};

struct Image {
  std::string imageId;
  std::string name;
  std::string ownerId;
  std::string architecture;  // "x86_64", "arm64"
  std::string state;         // "available"
  std::string creationDate;  // ISO 8601, as EC2 writes it; orders lexically
  std::string deprecationTime;
  Tags tags;
};

struct SpotPrice {
  std::string instanceType;
  std::string availabilityZone;
  double price = 0;
  core::TimePoint timestamp;
};

// Launch templates -----------------------------------------------------------------------------

struct EbsBlockDevice {
  std::optional<bool> deleteOnTermination;
  std::optional<bool> encrypted;
  std::optional<int64_t> iops;
  std::optional<int64_t> throughput;
  std::optional<int64_t> volumeSizeGiB;
  std::string kmsKeyId;
  std::string snapshotId;
  std::string volumeType;
};

struct LaunchTemplateBlockDevice {
  std::string deviceName;
  std::optional<EbsBlockDevice> ebs;
};

// NetworkInterface.N.ConnectionTrackingSpecification: idle timeouts in seconds; unset ones keep
// EC2's defaults.
struct ConnectionTracking {
  std::optional<int> tcpEstablishedTimeout;
  std::optional<int> udpStreamTimeout;
  std::optional<int> udpTimeout;
};

// LaunchTemplateData.NetworkInterface.N
struct LaunchTemplateNetworkInterface {
  std::optional<bool> associateCarrierIpAddress;
  std::optional<bool> associatePublicIpAddress;
  std::optional<bool> deleteOnTermination;
  std::string description;
  int deviceIndex = 0;
  std::optional<int> networkCardIndex;
  std::string interfaceType;  // empty (a plain ENA interface), "efa", "efa-only"
  std::optional<int> ipv4PrefixCount;
  std::optional<int> ipv6PrefixCount;
  std::vector<std::string> groups;  // security group ids
  std::string subnetId;             // only when the interface pins its own subnet
  std::optional<ConnectionTracking> connectionTracking;
};

struct MetadataOptions {
  std::string httpEndpoint;  // "enabled" | "disabled"
  std::string httpProtocolIpv6;
  std::string httpTokens;  // "required" | "optional"
  std::optional<int> httpPutResponseHopLimit;
};

struct LaunchTemplateData {
  std::string imageId;
  std::string userData;  // base64, as EC2 takes it
  std::string instanceProfileName;
  std::vector<std::string> securityGroupIds;  // empty when networkInterfaces carry the groups
  std::vector<LaunchTemplateBlockDevice> blockDeviceMappings;
  MetadataOptions metadataOptions;
  std::optional<bool> monitoring;
  std::vector<LaunchTemplateNetworkInterface> networkInterfaces;
  std::string nestedVirtualization;  // CpuOptions.NestedVirtualization; empty: not sent
  // TagSpecification.N for the instance, its volumes and its network interfaces.
  Tags resourceTags;
  // CapacityReservationSpecification: the preference ("open", "none",
  // "capacity-reservations-only") and the reservation it targets; empty: not sent.
  std::string capacityReservationPreference;
  std::string capacityReservationId;
  // InstanceMarketOptions.MarketType for reserved launches: "capacity-block" or
  // "interruptible-capacity-reservation"; empty: not sent.
  std::string marketType;
  // Placement.Tenancy: "default" or "dedicated"; empty: not sent.
  std::string tenancy;
  // Placement.GroupId and Placement.PartitionNumber; empty/nullopt: not sent.
  std::string placementGroupId;
  std::optional<int> placementPartition;
};

struct LaunchTemplate {
  std::string launchTemplateId;
  std::string launchTemplateName;
  int64_t defaultVersionNumber = 1;
  int64_t latestVersionNumber = 1;
  core::TimePoint createTime;
  Tags tags;
};

// CreateFleet (Type=instant) ---------------------------------------------------------------------

struct FleetOverride {
  std::string instanceType;
  std::string subnetId;
  std::string availabilityZone;  // informational; EC2 takes it from the subnet
  std::optional<double> priority;
  std::optional<std::string> imageId;  // an AMI per override (several architectures, one LT)
};

struct FleetLaunchTemplateConfig {
  std::string launchTemplateName;
  std::string version = "$Latest";
  std::vector<FleetOverride> overrides;
};

struct FleetRequest {
  std::vector<FleetLaunchTemplateConfig> launchTemplateConfigs;
  // DefaultTargetCapacityType: "spot" | "on-demand" | "capacity-block" | "reserved-capacity"
  // (interruptible capacity reservations, sent with ReservedCapacityOptions).
  std::string capacityType;
  std::string allocationStrategy;  // "price-capacity-optimized", "lowest-price", ...
  int targetCapacity = 1;
  std::string clientToken;  // at most 64 ASCII characters
  Tags tags;                // on the instance, its volumes and the fleet
};

// One errorSet item: a pool the fleet tried and could not use.
struct FleetError {
  std::string instanceType;
  std::string subnetId;
  std::string availabilityZone;
  std::string errorCode;  // "InsufficientInstanceCapacity", "UnfulfillableCapacity", ...
  std::string errorMessage;
};

struct FleetResult {
  std::string fleetId;
  std::vector<std::string> instanceIds;
  std::string instanceType;  // of the launched instances
  std::string subnetId;
  std::string availabilityZone;
  std::string lifecycle;  // "spot" | "on-demand"
  std::vector<FleetError> errors;
};

// Instances ----------------------------------------------------------------------------------

struct InstanceNetworkInterface {
  std::string networkInterfaceId;
  std::string subnetId;
  int deviceIndex = 0;
  int networkCardIndex = 0;
  std::string interfaceType;
  std::vector<std::string> groupIds;
};

struct Instance {
  std::string instanceId;
  std::string instanceType;
  std::string imageId;
  std::string availabilityZone;
  std::string subnetId;
  std::string vpcId;
  std::string state;  // "pending", "running", "shutting-down", "terminated", ...
  std::string privateIpAddress;
  std::string privateDnsName;
  std::string publicIpAddress;
  // "spot", "capacity-block", "interruptible-capacity-reservation", or empty for on-demand (as
  // EC2 reports it).
  std::string lifecycle;
  std::string capacityReservationId;          // the reservation it runs in; empty: none
  std::string capacityReservationPreference;  // "open", "none", "capacity-reservations-only"
  std::string tenancy;                        // Placement.Tenancy: "default", "dedicated", "host"
  std::string platform;                       // "windows" for Windows instances; empty otherwise
  std::string placementGroupId;               // Placement.GroupId; empty: in none
  std::optional<int> partitionNumber;         // Placement.PartitionNumber, partition groups only
  core::TimePoint launchTime;
  std::vector<std::string> securityGroupIds;
  std::vector<InstanceNetworkInterface> networkInterfaces;
  Tags tags;
};

// DescribePlacementGroups ---------------------------------------------------------------------

struct PlacementGroup {
  std::string groupId;  // "pg-0123456789abcdef0"
  std::string groupName;
  std::string strategy;     // "cluster" | "partition" | "spread"
  std::string state;        // "pending" | "available" | "deleting" | "deleted"
  int partitionCount = 0;   // partition groups only
  std::string spreadLevel;  // spread groups: "rack" | "host"
  Tags tags;
};

// DescribeCapacityReservations ----------------------------------------------------------------

struct CapacityReservation {
  std::string capacityReservationId;
  std::string ownerId;
  std::string instanceType;
  std::string availabilityZone;
  std::string availabilityZoneId;
  int64_t totalInstanceCount = 0;
  int64_t availableInstanceCount = 0;
  std::string state;                  // "active", "expired", "cancelled", ...
  std::string instanceMatchCriteria;  // "open" | "targeted"
  std::string reservationType;        // "default" | "capacity-block"; empty: default
  std::optional<core::TimePoint> endDate;
  bool interruptible = false;
  Tags tags;
};

struct InstanceStateChange {
  std::string instanceId;
  std::string previousState;
  std::string currentState;
};

}  // namespace nodewright::aws
