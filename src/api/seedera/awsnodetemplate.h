#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/seedera/common.h"

// karpenter.k8s.aws/v1alpha1 AWSNodeTemplate, as Karpenter v0.31 served it, plus seed 001's
// networkInterfaces (with the per-interface selectors of its first example). Converted to
// karpenter.k8s.aws/v1 EC2NodeClass by src/api/conversion/ec2nodeclass_conversion.h.
//
// Selectors are the legacy string maps: under "aws-ids" / "aws::ids" a comma-separated list
// of IDs, under "aws::name" names (security groups, AMIs), under "aws::owners" AMI owners;
// every other key is a tag, with "*" matching any value.
namespace nodewright::api::seedera {

struct MetadataOptions {
  std::optional<std::string> httpEndpoint;
  std::optional<std::string> httpProtocolIPv6;
  std::optional<int64_t> httpPutResponseHopLimit;
  std::optional<std::string> httpTokens;
};
const reflect::StructSchema& describe(reflect::Tag<MetadataOptions>);

struct BlockDevice {
  std::optional<bool> deleteOnTermination;
  std::optional<bool> encrypted;
  std::optional<int64_t> iops;
  std::string kmsKeyID;
  std::string snapshotID;
  std::optional<int64_t> throughput;
  std::optional<core::Quantity> volumeSize;
  std::string volumeType;
};
const reflect::StructSchema& describe(reflect::Tag<BlockDevice>);

struct BlockDeviceMapping {
  std::string deviceName;
  std::string virtualName;
  std::optional<BlockDevice> ebs;
};
const reflect::StructSchema& describe(reflect::Tag<BlockDeviceMapping>);

// Seed 001's launch-template network interface.
struct NetworkInterface {
  std::optional<bool> associateCarrierIPAddress;
  std::optional<bool> associatePublicIPAddress;
  std::optional<bool> deleteOnTermination;
  std::string description;
  std::optional<int32_t> deviceIndex;
  std::optional<std::string> interfaceType;
  std::optional<int32_t> networkCardIndex;
  std::optional<int32_t> ipv4PrefixCount;
  std::optional<int32_t> ipv6PrefixCount;
  std::map<std::string, std::string> subnetSelector;
  std::map<std::string, std::string> securityGroupSelector;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkInterface>);

struct AWSNodeTemplateSpec {
  std::optional<std::string> userData;
  std::optional<std::string> amiFamily;
  std::string context;
  std::string instanceProfile;
  std::map<std::string, std::string> subnetSelector;
  std::map<std::string, std::string> securityGroupSelector;
  std::map<std::string, std::string> tags;
  std::string launchTemplate;  // Go LaunchTemplateName: an unmanaged launch template
  std::optional<MetadataOptions> metadataOptions;
  std::vector<BlockDeviceMapping> blockDeviceMappings;
  std::map<std::string, std::string> amiSelector;
  std::optional<bool> detailedMonitoring;
  std::optional<bool> associatePublicIpAddress;  // sic: v1alpha1 spells it "Ip"
  std::vector<NetworkInterface> networkInterfaces;
};
const reflect::StructSchema& describe(reflect::Tag<AWSNodeTemplateSpec>);

struct SubnetStatus {
  std::string id;
  std::string zone;
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
};
const reflect::StructSchema& describe(reflect::Tag<AMIStatus>);

struct AWSNodeTemplateStatus {
  std::vector<SubnetStatus> subnets;
  std::vector<SecurityGroupStatus> securityGroups;
  std::vector<AMIStatus> amis;
};
const reflect::StructSchema& describe(reflect::Tag<AWSNodeTemplateStatus>);

struct AWSNodeTemplate {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AWSNodeTemplateSpec spec;
  AWSNodeTemplateStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AWSNodeTemplate>);

}  // namespace nodewright::api::seedera
