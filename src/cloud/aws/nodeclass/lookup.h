#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "aws/ssm_client.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/sdk.h"
#include "core/error.h"
#include "core/time.h"

// The lookups behind NodeClassResolver, one per kind of selector, uncached. Each runs one
// Describe call per term (the id terms together in one), so terms are ORed and a term's fields
// ANDed; a tag value "*" selects on the key alone. Errors are the client's, converted with
// toCoreError and wrapped; nothing matching is an empty answer.
namespace nodewright::cloud::aws::nodeclass {

// EC2 filters for a term's tags: "tag:KEY" = value, or "tag-key" = KEY for the value "*".
void addTagFilters(const std::map<std::string, std::string>& tags,
                   std::vector<sdk::Filter>& filters);

// Every subnet any term selects, once each, most available addresses first (then by id).
core::Result<std::vector<sdk::Subnet>> findSubnets(
    sdk::Ec2Client& ec2, const std::vector<api::karpenter::SubnetSelectorTerm>& terms);

// Every security group any term selects (a name is EC2's group-name), once each, by id.
core::Result<std::vector<sdk::SecurityGroup>> findSecurityGroups(
    sdk::Ec2Client& ec2, const std::vector<api::karpenter::SecurityGroupSelectorTerm>& terms);

struct ImageSearch {
  // Newest first: per requirement set the newest image, a deprecated one only when that set
  // has nothing else.
  std::vector<ResolvedImage> images;
  // Why nothing matched, when more can be said than "no AMIs match" (an alias whose SSM
  // parameters do not exist); empty otherwise.
  std::string detail;
  // The AMIsReady reason when nothing matched and it is not AMINotFound: "UnsupportedAlias"
  // for an alias Karpenter refuses on this Kubernetes version. Empty otherwise.
  std::string reason;
};

// Images for the AMI terms: alias (family@version, through the EKS SSM parameters of
// `kubernetesVersion`), id, name (owners self and amazon unless the term names one), owner,
// tags, ssmParameter. An image is deprecated when its deprecationTime is at or before `now`.
core::Result<ImageSearch> findImages(sdk::Ec2Client& ec2, sdk::SsmClient& ssm,
                                     const std::vector<api::karpenter::AMISelectorTerm>& terms,
                                     const std::string& kubernetesVersion, core::TimePoint now);

// The available placement group the selector names (by id, else by name), as Karpenter v1.14's
// placementgroup provider asks for it (state available); nullopt when EC2 knows none.
core::Result<std::optional<sdk::PlacementGroup>> findPlacementGroup(
    sdk::Ec2Client& ec2, const api::karpenter::PlacementGroupSelector& selector);

// The AMI family the node class launches with (kFamily* of resolved.h): amiFamily "Custom"
// wins (the user brings their own user data), then the alias's family, then amiFamily, then
// AL2023.
std::string familyOf(const api::karpenter::EC2NodeClassSpec& spec);

}  // namespace nodewright::cloud::aws::nodeclass
