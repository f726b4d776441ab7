#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "aws/error.h"
#include "aws/query.h"
#include "core/time.h"
#include "emulators/ec2/tagging.h"
#include "emulators/engine/resource_store.h"

// Launch templates: the typed launch configuration (the fields Karpenter sends), parsed from
// the Query parameters of CreateLaunchTemplate's LaunchTemplateData and of RunInstances (they
// share their names), rendered as botocore's ResponseLaunchTemplateData, and the stored
// template with its versions.
namespace nodewright::emulators::ec2 {

struct EbsSpec {
  std::optional<int64_t> volumeSize;  // GiB
  std::optional<std::string> volumeType;
  std::optional<int64_t> iops;
  std::optional<int64_t> throughput;
  std::optional<bool> encrypted;
  std::optional<std::string> kmsKeyId;
  std::optional<bool> deleteOnTermination;
  std::optional<std::string> snapshotId;
  bool operator==(const EbsSpec&) const = default;
};

struct BlockDeviceMappingSpec {
  std::string deviceName;
  std::optional<EbsSpec> ebs;
  bool operator==(const BlockDeviceMappingSpec&) const = default;
};

// ConnectionTrackingSpecification: idle timeouts in seconds (EC2's ranges: TCP established
// 60-432000, UDP stream 60-180, UDP 30-60).
struct ConnectionTrackingSpec {
  std::optional<int64_t> tcpEstablishedTimeout;
  std::optional<int64_t> udpStreamTimeout;
  std::optional<int64_t> udpTimeout;
  bool operator==(const ConnectionTrackingSpec&) const = default;
};

// A network interface as requested; unset fields take EC2's defaults at launch.
struct NetworkInterfaceRequest {
  std::optional<int64_t> deviceIndex;
  std::optional<int64_t> networkCardIndex;
  std::optional<std::string> interfaceType;  // "interface", "efa", "efa-only"
  std::optional<bool> associatePublicIpAddress;
  std::optional<bool> associateCarrierIpAddress;
  std::optional<bool> deleteOnTermination;
  std::optional<std::string> description;
  std::optional<std::string> subnetId;
  std::vector<std::string> groups;  // SecurityGroupId.N
  std::optional<int64_t> ipv4PrefixCount;
  std::optional<int64_t> ipv6PrefixCount;
  std::optional<int64_t> secondaryPrivateIpAddressCount;
  std::optional<int64_t> ipv6AddressCount;
  std::optional<ConnectionTrackingSpec> connectionTracking;
  bool operator==(const NetworkInterfaceRequest&) const = default;
};

struct MetadataOptionsSpec {
  std::optional<std::string> httpTokens;  // "optional", "required"
  std::optional<int64_t> httpPutResponseHopLimit;
  std::optional<std::string> httpEndpoint;  // "enabled", "disabled"
  std::optional<std::string> httpProtocolIpv6;
  std::optional<std::string> instanceMetadataTags;
  bool operator==(const MetadataOptionsSpec&) const = default;
};

struct IamInstanceProfileSpec {
  std::optional<std::string> arn;
  std::optional<std::string> name;
  bool operator==(const IamInstanceProfileSpec&) const = default;
};

struct InstanceMarketOptionsSpec {
  std::optional<std::string> marketType;  // "spot", "capacity-block"
  std::optional<std::string> maxPrice;
  std::optional<std::string> spotInstanceType;  // "one-time", "persistent"
  std::optional<std::string> instanceInterruptionBehavior;
  bool operator==(const InstanceMarketOptionsSpec&) const = default;
};

struct CapacityReservationSpec {
  std::optional<std::string> preference;  // "open", "none", "capacity-reservations-only"
  std::optional<std::string> reservationId;
  std::optional<std::string> resourceGroupArn;
  bool operator==(const CapacityReservationSpec&) const = default;
};

// CpuOptions, as LaunchTemplateCpuOptions.
struct CpuOptionsSpec {
  std::optional<int64_t> coreCount;
  std::optional<int64_t> threadsPerCore;
  std::optional<std::string> amdSevSnp;             // "enabled", "disabled"
  std::optional<std::string> nestedVirtualization;  // "enabled", "disabled"
  bool operator==(const CpuOptionsSpec&) const = default;
};

struct PrivateDnsNameOptionsSpec {
  std::optional<std::string> hostnameType;  // "ip-name", "resource-name"
  std::optional<bool> enableResourceNameDnsARecord;
  std::optional<bool> enableResourceNameDnsAAAARecord;
  bool operator==(const PrivateDnsNameOptionsSpec&) const = default;
};

// What a launch asks for. Every field is optional, so a template, RunInstances parameters and
// fleet overrides can be layered (see overlay()).
struct LaunchTemplateData {
  std::optional<std::string> imageId;
  std::optional<std::string> instanceType;
  std::optional<std::string> keyName;
  std::optional<std::string> userData;  // base64, as sent
  std::vector<NetworkInterfaceRequest> networkInterfaces;
  std::vector<std::string> securityGroupIds;
  std::optional<MetadataOptionsSpec> metadataOptions;
  std::vector<BlockDeviceMappingSpec> blockDeviceMappings;
  std::optional<IamInstanceProfileSpec> iamInstanceProfile;
  std::optional<bool> monitoringEnabled;
  std::optional<bool> ebsOptimized;
  std::vector<TagSpecification> tagSpecifications;
  std::optional<InstanceMarketOptionsSpec> instanceMarketOptions;
  std::optional<CapacityReservationSpec> capacityReservation;
  std::optional<PrivateDnsNameOptionsSpec> privateDnsNameOptions;
  std::optional<CpuOptionsSpec> cpuOptions;
  std::optional<std::string> availabilityZone;    // Placement.AvailabilityZone
  std::optional<std::string> tenancy;             // Placement.Tenancy
  std::optional<std::string> placementGroupId;    // Placement.GroupId
  std::optional<std::string> placementGroupName;  // Placement.GroupName
  std::optional<int64_t> partitionNumber;         // Placement.PartitionNumber
  bool operator==(const LaunchTemplateData&) const = default;
};

// Reads the launch fields under `params` (a view of "LaunchTemplateData." or the root of a
// RunInstances request): ImageId, InstanceType, NetworkInterface.N.* (with its
// ConnectionTrackingSpecification.*), SecurityGroupId.N, BlockDeviceMapping.N.*,
// MetadataOptions.*, CpuOptions.*, TagSpecification.N, ... Errors name the full
// parameter ("Invalid value 'x' for LaunchTemplateData.NetworkInterface.1.DeviceIndex").
aws::ApiResult<LaunchTemplateData> parseLaunchTemplateData(const aws::Params& params);

// `over`'s set fields replace `base`'s; a non-empty list replaces the whole list, except tag
// specifications, which merge per resource type and key (the request's win).
LaunchTemplateData overlay(const LaunchTemplateData& base, const LaunchTemplateData& over);

// The members of botocore's ResponseLaunchTemplateData under `parent` (<launchTemplateData>).
void renderLaunchTemplateData(pugi::xml_node parent, const LaunchTemplateData& data);

struct LaunchTemplateVersion {
  int64_t number = 1;
  std::string description;
  core::TimePoint created;
  std::string createdBy;  // an ARN
  LaunchTemplateData data;
};

// A stored launch template. The store knows it under its name as client token, which makes
// names unique in one atomic step and lookups by name cheap; the request's ClientToken is kept
// here. Versions are shared between copies: a new version makes new attributes holding the
// old versions' pointers.
struct LaunchTemplateAttributes : Attributes {
  std::string name;
  std::string clientToken;
  std::string createdBy;
  int64_t defaultVersion = 1;
  std::vector<std::shared_ptr<const LaunchTemplateVersion>> versions;  // ascending numbers

  int64_t latestVersion() const { return versions.empty() ? 0 : versions.back()->number; }
  const LaunchTemplateVersion* version(int64_t number) const;
};

// How a launch names a template: LaunchTemplate.{LaunchTemplateId|LaunchTemplateName,Version}.
struct LaunchTemplateRef {
  std::string id;
  std::string name;
  std::string version;  // "", "$Latest", "$Default" or a number; "" means $Default
};

// The template a launch uses, at the version it resolved to.
struct ResolvedTemplate {
  std::string id;
  std::string name;
  std::shared_ptr<const LaunchTemplateVersion> version;
};

// Reads a LaunchTemplateSpecification-shaped view; nullopt when it names no template.
std::optional<LaunchTemplateRef> parseLaunchTemplateRef(const aws::Params& params);

// Finds the template and version in `store`: InvalidLaunchTemplateId.NotFound,
// InvalidLaunchTemplateName.NotFoundException, InvalidLaunchTemplateId.VersionNotFound, or
// InvalidParameterCombination when both id and name are given.
aws::ApiResult<ResolvedTemplate> resolveLaunchTemplate(ResourceStore& store,
                                                       const LaunchTemplateRef& ref);

// The live template named `name`, if any.
std::optional<Resource> findLaunchTemplateByName(ResourceStore& store, std::string_view name);

}  // namespace nodewright::emulators::ec2
