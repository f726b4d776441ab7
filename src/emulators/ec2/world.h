#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "emulators/ec2/catalog.h"
#include "emulators/engine/resource_store.h"

// The world an EC2 emulator starts with: a region's zones, VPCs with subnets and security
// groups, AMIs and the SSM parameters that name them. By default the subnets and security groups
// of the main VPC are tagged karpenter.sh/discovery: nodewright, so the examples work unchanged,
// and the AMIs of AL2023, AL2, Bottlerocket and Windows Server exist for each architecture and
// Kubernetes version, each reachable through the SSM parameter Karpenter's alias resolves
// (al2023@latest -> /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/...,
// windows2022@latest -> /aws/service/ami-windows-latest/Windows_Server-2022-English-Core-...).
namespace nodewright::emulators::ec2 {

struct ZoneConfig {
  std::string name;    // "us-east-1a"
  std::string zoneId;  // "use1-az1"
};

struct SubnetConfig {
  std::string id;  // empty: generated
  std::string zone;
  std::string cidrBlock;
  std::string ipv6CidrBlock;
  // Empty: the CIDR's size less the 5 addresses AWS reserves.
  std::optional<int64_t> availableIps;
  bool mapPublicIpOnLaunch = false;
  Tags tags;
};

struct SecurityGroupConfig {
  std::string id;
  std::string name;
  std::string description;
  Tags tags;
};

struct VpcConfig {
  std::string id;
  std::string cidrBlock;
  std::string ipv6CidrBlock;  // the Amazon-provided /56 its subnets' /64s come from; empty: none
  bool isDefault = false;
  Tags tags;
  std::vector<SubnetConfig> subnets;
  std::vector<SecurityGroupConfig> securityGroups;
};

struct ImageConfig {
  std::string id;
  std::string name;
  std::string description;
  Architecture architecture = Architecture::X86_64;
  std::string ownerId;
  std::string ownerAlias;
  std::string creationDate;
  std::optional<std::string> deprecationTime;
  std::string bootMode;  // "uefi", "legacy-bios", "uefi-preferred"; empty: not set
  // "windows" for Windows images (platform details "Windows", root device /dev/sda1), as EC2's
  // Platform field; empty for Linux/UNIX.
  std::string platform;
  Tags tags;
  // SSM parameters whose value is this image's id.
  std::vector<std::string> ssmParameters;
};

struct WorldConfig {
  std::string region = "us-east-1";
  std::string accountId = "123456789012";
  std::vector<ZoneConfig> zones;
  std::vector<VpcConfig> vpcs;
  // Images of the EKS-optimized families (AL2023, AL2, Bottlerocket; x86_64, arm64 and the GPU
  // variants; Windows Server 2019, 2022 and, from 1.35, 2025 Core) are generated for these
  // versions, with their SSM parameters.
  std::vector<std::string> kubernetesVersions;
  std::vector<ImageConfig> images;  // in addition to the generated ones
};

// us-east-1a..c; VPC 10.0.0.0/16 with a /19 subnet per zone and a node security group, all
// tagged karpenter.sh/discovery: nodewright; a second, untagged VPC (for cross-VPC errors);
// EKS images for Kubernetes 1.30 to 1.35.
WorldConfig defaultWorld();

// A YAML or JSON document with the fields of WorldConfig (lowerCamelCase). Missing top-level
// fields keep defaultWorld()'s values. Invalid with the field path of each problem.
core::Result<WorldConfig> parseWorldConfig(std::string_view text);
core::Result<WorldConfig> loadWorldConfig(const std::string& path);

// The world's state after seeding that is not a stored resource.
struct World {
  std::string region;
  std::string accountId;
  std::vector<ZoneConfig> zones;
  std::map<std::string, std::string, std::less<>> ssmParameters;  // name -> value
  // name -> version, for parameters PutParameter changed; the others are at version 1.
  std::map<std::string, int64_t, std::less<>> ssmVersions;

  const ZoneConfig* zone(std::string_view name) const;
};

// Creates the world's resources in `store`; Invalid when a config names a zone the world lacks
// or repeats an id.
core::Result<World> seedWorld(ResourceStore& store, const WorldConfig& config);

}  // namespace nodewright::emulators::ec2
