#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/common.h"
#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/amifamily/bootstrap.h"
#include "cloud/aws/launch/network_interfaces.h"
#include "cloud/aws/launch/tags.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/sdk.h"
#include "core/error.h"

// The launch template one launch configuration needs: its data (AMI, security groups, user
// data, block devices, metadata options, monitoring, instance profile, network interfaces with
// their connection tracking, CPU options, resource tags), its ownership tags and its name, a hash
// of both. Pure: no EC2 calls.
namespace nodewright::cloud::aws {

inline constexpr const char* kTemplateNamePrefix = "karpenter.k8s.aws/";

// What differs between the templates of one node class: the AMI, what the user data registers
// the node with, and the interfaces (EFA count, zone).
struct LaunchSettings {
  std::string imageId;
  std::map<std::string, std::string> labels;
  std::vector<api::karpenter::Taint> taints;
  std::optional<api::karpenter::KubeletConfiguration> kubelet;
  std::optional<int32_t> maxPods;
  InterfaceOptions interfaces;
  // A reserved launch's target (capacityreservation/offerings.h): the template asks for
  // capacity-reservations-only in it, with the reservation's market type. Empty: the template
  // opts out of open reservations (preference "none"), as Karpenter's do.
  std::string capacityReservationId{};
  std::string marketType{};
  // Placement.Tenancy: "default" or "dedicated" (launchTenancy); empty: not sent.
  std::string tenancy{};
  // The node class's placement group (Placement.GroupId); empty: none. For a partition group,
  // the partition the claim asks for (Placement.PartitionNumber); nullopt: EC2 chooses.
  std::string placementGroupId{};
  std::optional<int> placementPartition{};
};

struct TemplateSpec {
  std::string name;  // karpenter.k8s.aws/<decimal hash of data and tags>
  sdk::LaunchTemplateData data;
  sdk::Tags tags;  // on the template itself
};

// The node class's block devices, encrypted unless the user says encrypted: false, or the
// family's default root (and for Bottlerocket, data) volume; none for Custom AMIs, whose own
// mappings apply. Invalid naming spec.blockDeviceMappings[i] for a volume size under 1 GiB.
core::Result<std::vector<sdk::LaunchTemplateBlockDevice>> blockDevices(
    const api::karpenter::EC2NodeClassSpec& spec, const std::string& family);

// IMDSv2 required, hop limit 1, endpoint enabled, IPv6 endpoint disabled, each unless the node
// class sets it.
sdk::MetadataOptions metadataOptions(const api::karpenter::EC2NodeClassSpec& spec);

// The whole template. Errors from user data (naming spec.userData), block devices and network
// interfaces pass through.
core::Result<TemplateSpec> buildTemplate(const ClusterInfo& cluster,
                                         const api::karpenter::EC2NodeClass& nodeClass,
                                         const ResolvedNodeClass& resolved,
                                         const LaunchSettings& settings);

// Deterministic across runs and platforms: every field of `data` and `tags`, in a fixed order.
std::string templateName(const sdk::LaunchTemplateData& data, const sdk::Tags& tags);

}  // namespace nodewright::cloud::aws
