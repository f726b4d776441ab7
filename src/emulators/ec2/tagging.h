#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "aws/query.h"
#include "emulators/ec2/action.h"
#include "emulators/engine/resource_store.h"

// EC2 tags in requests: TagSpecification.N (tags applied at creation, per resource type) and
// Tag.N, and the CreateTags and DeleteTags actions. Responses render tags with addTagSet()
// (render.h).
namespace nodewright::emulators::ec2 {

struct TagSpecification {
  std::string resourceType;  // "instance", "volume", "launch-template", "fleet", ...
  Tags tags;                 // sorted by key
  bool operator==(const TagSpecification&) const = default;
};

// Reads `name`.N.ResourceType and `name`.N.Tag.M.{Key,Value}. A resource type outside `allowed`
// is InvalidParameterValue "'x' is not a valid taggable resource type for this operation.", as
// EC2 answers; a missing one InvalidTagSpecification.Malformed.
aws::ApiResult<std::vector<TagSpecification>> parseTagSpecifications(
    const aws::Params& params, std::string_view name,
    std::initializer_list<std::string_view> allowed);

// The tags of every specification for `resourceType`, later specifications winning per key.
Tags tagsFor(const std::vector<TagSpecification>& specs, std::string_view resourceType);

// Tag.N.{Key,Value}; an absent value is empty. InvalidParameterValue for an empty key or a key
// starting with "aws:" (reserved).
aws::ApiResult<Tags> parseTags(const aws::Params& params, std::string_view name);

// CreateTags / DeleteTags over instances, launch templates, fleets, subnets, security groups,
// images and VPCs, by the id's prefix.
aws::ApiResult<std::string> createTags(ActionContext& ctx);
aws::ApiResult<std::string> deleteTags(ActionContext& ctx);

}  // namespace nodewright::emulators::ec2
