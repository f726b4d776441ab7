#include "emulators/ec2/tagging.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "aws/xml.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

// GUESS: wording; EC2 rejects reserved keys with InvalidParameterValue.
aws::ApiResult<void> checkKey(const std::string& key, const std::string& path) {
  if (key.empty()) {
    return aws::apiFail("InvalidParameterValue", "Tag key must not be empty (" + path + ")");
  }
  if (key.starts_with("aws:")) {
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("Value ( {} ) for parameter key is invalid. Tag keys starting "
                                    "with 'aws:' are reserved for internal use",
                                    key));
  }
  if (key.size() > 128) {
    return aws::apiFail(
        "InvalidParameterValue",
        fmt::format("Tag key exceeds the maximum length of 128 characters ({})", path));
  }
  return {};
}

// The store type of a taggable id and the error EC2 gives when it does not exist.
struct TaggableKind {
  std::string_view prefix;
  std::string_view type;
  std::string_view notFoundCode;
  std::string_view notFoundFormat;  // {} is the id
};

// CONFIRMED codes: InvalidInstanceID.NotFound, InvalidSubnetID.NotFound, InvalidGroup.NotFound,
// InvalidAMIID.NotFound, InvalidVpcID.NotFound (EC2 error code reference). GUESS: the fleet and
// launch template codes for CreateTags, and the fleet wording.
constexpr TaggableKind kTaggable[] = {
    {"i-", kind::kInstance, "InvalidInstanceID.NotFound", "The instance ID '{}' does not exist"},
    {"lt-", kind::kLaunchTemplate, "InvalidLaunchTemplateId.NotFound",
     "The specified launch template, with template ID {}, does not exist."},
    {"fleet-", kind::kFleet, "InvalidFleetId.NotFound", "The fleet ID '{}' does not exist"},
    {"subnet-", kind::kSubnet, "InvalidSubnetID.NotFound", "The subnet ID '{}' does not exist"},
    {"sg-", kind::kSecurityGroup, "InvalidGroup.NotFound",
     "The security group '{}' does not exist"},
    {"ami-", kind::kImage, "InvalidAMIID.NotFound", "The image id '[{}]' does not exist"},
    {"vpc-", kind::kVpc, "InvalidVpcID.NotFound", "The vpc ID '{}' does not exist"},
    {"cr-", kind::kCapacityReservation, "InvalidCapacityReservationId.NotFound",
     "The capacity reservation ID '{}' does not exist"},
};

// Resolves every id to its store type first, so a bad id changes nothing (EC2 tags all or none).
aws::ApiResult<std::vector<std::pair<std::string_view, std::string>>> resolveResources(
    ActionContext& ctx) {
  auto ids = ctx.params.strings("ResourceId");
  if (!ids) {
    return tl::unexpected(ids.error());
  }
  if (ids->empty()) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter ResourceId");
  }
  std::vector<std::pair<std::string_view, std::string>> out;
  for (const std::string& id : *ids) {
    const TaggableKind* found = nullptr;
    for (const TaggableKind& k : kTaggable) {
      if (id.starts_with(k.prefix)) {
        found = &k;
        break;
      }
    }
    // CONFIRMED: "InvalidID: The ID 'x' is not valid" (gruntwork-io/terratest#204).
    if (found == nullptr) {
      return aws::apiFail("InvalidID", fmt::format("The ID '{}' is not valid", id));
    }
    if (!ctx.engine.store().get(found->type, id)) {
      return aws::apiFail(std::string(found->notFoundCode),
                          fmt::format(fmt::runtime(found->notFoundFormat), id));
    }
    out.emplace_back(found->type, id);
  }
  return out;
}

std::string emptyResponse(ActionContext& ctx) {
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  aws::xml::addBool(response.root(), "return", true);
  return response.str();
}

}  // namespace

aws::ApiResult<std::vector<TagSpecification>> parseTagSpecifications(
    const aws::Params& params, std::string_view name,
    std::initializer_list<std::string_view> allowed) {
  auto members = params.list(name);
  if (!members) {
    return tl::unexpected(members.error());
  }
  std::vector<TagSpecification> out;
  for (const aws::Params& member : *members) {
    TagSpecification spec;
    spec.resourceType = member.strOr("ResourceType", "");
    // CONFIRMED: "The resource type cannot be null or empty." (awsdocs/aws-cloudformation-user-
    // guide#634).
    if (spec.resourceType.empty()) {
      return aws::apiFail("InvalidTagSpecification.Malformed",
                          "The resource type cannot be null or empty.");
    }
    // CONFIRMED: aws/aws-cli#2865.
    if (std::find(allowed.begin(), allowed.end(), spec.resourceType) == allowed.end()) {
      return aws::apiFail("InvalidParameterValue",
                          fmt::format("'{}' is not a valid taggable resource type for this "
                                      "operation.",
                                      spec.resourceType));
    }
    auto tags = parseTags(member, "Tag");
    if (!tags) {
      return tl::unexpected(tags.error());
    }
    spec.tags = std::move(*tags);
    out.push_back(std::move(spec));
  }
  return out;
}

Tags tagsFor(const std::vector<TagSpecification>& specs, std::string_view resourceType) {
  Tags out;
  for (const TagSpecification& spec : specs) {
    if (spec.resourceType == resourceType) {
      setTags(out, spec.tags);
    }
  }
  return out;
}

aws::ApiResult<Tags> parseTags(const aws::Params& params, std::string_view name) {
  auto members = params.list(name);
  if (!members) {
    return tl::unexpected(members.error());
  }
  Tags out;
  for (const aws::Params& member : *members) {
    Tag tag{member.strOr("Key", ""), member.strOr("Value", "")};
    if (auto ok = checkKey(tag.key, member.path("Key")); !ok) {
      return tl::unexpected(ok.error());
    }
    setTags(out, {tag});
  }
  return out;
}

aws::ApiResult<std::string> createTags(ActionContext& ctx) {
  auto resources = resolveResources(ctx);
  if (!resources) {
    return tl::unexpected(resources.error());
  }
  auto tags = parseTags(ctx.params, "Tag");
  if (!tags) {
    return tl::unexpected(tags.error());
  }
  if (tags->empty()) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter Tag");
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return tl::unexpected(dry.error());
  }
  for (const auto& [type, id] : *resources) {
    // A resource removed since resolveResources() simply has nothing left to tag.
    (void)ctx.engine.store().update(type, id, [&](Resource& r) { setTags(r.tags, *tags); });
  }
  return emptyResponse(ctx);
}

aws::ApiResult<std::string> deleteTags(ActionContext& ctx) {
  auto resources = resolveResources(ctx);
  if (!resources) {
    return tl::unexpected(resources.error());
  }
  auto members = ctx.params.list("Tag");
  if (!members) {
    return tl::unexpected(members.error());
  }
  // Key -> the value a tag must have to be removed; nullopt: any value. No Tag.N: every tag.
  std::vector<std::pair<std::string, std::optional<std::string>>> doomed;
  for (const aws::Params& member : *members) {
    auto key = member.str("Key");
    if (!key) {
      return tl::unexpected(key.error());
    }
    auto value = member.find("Value");
    doomed.emplace_back(*key, value ? std::optional<std::string>(*value) : std::nullopt);
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return tl::unexpected(dry.error());
  }
  for (const auto& [type, id] : *resources) {
    (void)ctx.engine.store().update(type, id, [&](Resource& r) {
      if (members->empty()) {
        r.tags.clear();
        return;
      }
      std::erase_if(r.tags, [&](const Tag& tag) {
        return std::any_of(doomed.begin(), doomed.end(), [&](const auto& d) {
          return d.first == tag.key && (!d.second || *d.second == tag.value);
        });
      });
    });
  }
  return emptyResponse(ctx);
}

}  // namespace nodewright::emulators::ec2
