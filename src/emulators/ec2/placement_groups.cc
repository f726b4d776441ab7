#include "emulators/ec2/placement_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "aws/xml.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/tagging.h"
#include "emulators/ec2/world.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

// EC2's limit on the partitions of a partition group.
constexpr int64_t kMaxPartitions = 7;

// GUESS: wording; the codes are EC2's for an unknown group name and a taken one.
aws::ApiError groupUnknown(std::string_view name) {
  return {"InvalidPlacementGroup.Unknown",
          fmt::format("The Placement Group '{}' is unknown.", name)};
}
aws::ApiError groupDuplicate(std::string_view name) {
  return {"InvalidPlacementGroup.Duplicate",
          fmt::format("The Placement Group '{}' already exists.", name)};
}

std::string arnOf(const World& world, std::string_view name) {
  return fmt::format("arn:aws:ec2:{}:{}:placement-group/{}", world.region, world.accountId, name);
}

std::optional<Resource> findByName(ResourceStore& store, std::string_view name) {
  auto found = store.list(kind::kPlacementGroup, [&](const Resource& r) {
    const auto* a = r.as<PlacementGroupAttributes>();
    return r.live() && a != nullptr && a->name == name;
  });
  return found.empty() ? std::nullopt : std::optional<Resource>(std::move(found.front()));
}

std::vector<std::string> groupValues(const Resource& r, std::string_view n) {
  const auto* a = r.as<PlacementGroupAttributes>();
  if (a == nullptr) {
    return {};
  }
  if (n == "group-name") {
    return {a->name};
  }
  if (n == "group-id") {
    return {r.id};
  }
  if (n == "strategy") {
    return {a->strategy};
  }
  if (n == "state") {
    return {r.state};
  }
  if (n == "spread-level" && !a->spreadLevel.empty()) {
    return {a->spreadLevel};
  }
  if (n == "partition-count" && a->partitionCount > 0) {
    return {std::to_string(a->partitionCount)};
  }
  return {};
}

void renderGroup(pugi::xml_node item, const World& world, const Resource& r) {
  const auto* a = r.as<PlacementGroupAttributes>();
  if (a == nullptr) {
    return;
  }
  addText(item, "groupName", a->name);
  addText(item, "state", r.state);
  addText(item, "strategy", a->strategy);
  if (a->partitionCount > 0) {
    aws::xml::addInt(item, "partitionCount", a->partitionCount);
  }
  addText(item, "groupId", r.id);
  addTagSet(item, r.tags);
  addText(item, "groupArn", arnOf(world, a->name));
  if (!a->spreadLevel.empty()) {
    addText(item, "spreadLevel", a->spreadLevel);
  }
}

aws::ApiResult<std::string> createPlacementGroup(ActionContext& ctx) {
  std::optional<aws::ApiError> error;
  ParamReader r(ctx.params, error);
  PlacementGroupAttributes a;
  auto name = r.str("GroupName");
  a.strategy = r.oneOf("Strategy", {"cluster", "spread", "partition"}).value_or("cluster");
  auto partitions = r.count("PartitionCount");
  auto spreadLevel = r.oneOf("SpreadLevel", {"host", "rack"});
  if (!name || name->empty()) {
    r.missing("GroupName");
  }
  if (partitions &&
      (a.strategy != "partition" || *partitions < 1 || *partitions > kMaxPartitions)) {
    r.invalid("PartitionCount", std::to_string(*partitions));
  }
  if (spreadLevel && a.strategy != "spread") {
    r.invalid("SpreadLevel", *spreadLevel);
  }
  auto tags = r.take(parseTagSpecifications(ctx.params, "TagSpecification", {"placement-group"}));
  if (error) {
    return tl::unexpected(std::move(*error));
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return tl::unexpected(dry.error());
  }
  ResourceStore& store = ctx.engine.store();
  if (findByName(store, *name)) {
    return tl::unexpected(groupDuplicate(*name));
  }
  a.name = *name;
  if (a.strategy == "partition") {
    a.partitionCount = partitions.value_or(2);  // GUESS: EC2's default partition count
  }
  if (a.strategy == "spread") {
    a.spreadLevel = spreadLevel.value_or("rack");
  }
  NewResource spec;
  spec.type = std::string(kind::kPlacementGroup);
  spec.idPrefix = "pg";
  spec.state = "available";
  spec.tags = tagsFor(tags.value_or(std::vector<TagSpecification>{}), "placement-group");
  spec.attributes = std::make_shared<const PlacementGroupAttributes>(std::move(a));
  auto created = store.create(std::move(spec));
  if (!created) {
    return aws::apiFail("InternalError", created.error().message(), 500);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  renderGroup(addElement(response.root(), "placementGroup"), ctx.world, created->resource);
  return response.str();
}

aws::ApiResult<std::string> describePlacementGroups(ActionContext& ctx) {
  auto request = parseDescribeRequest(
      ctx.params, "GroupId",
      {"group-name", "group-id", "strategy", "state", "spread-level", "partition-count"}, 1, 1000);
  if (!request) {
    return tl::unexpected(request.error());
  }
  std::optional<aws::ApiError> error;
  ParamReader r(ctx.params, error);
  const std::vector<std::string> names = r.strings("GroupName");
  if (error) {
    return tl::unexpected(std::move(*error));
  }
  ResourceStore& store = ctx.engine.store();
  if (auto missing = missingIds(store, kind::kPlacementGroup, request->ids); !missing.empty()) {
    // GUESS: EC2 answers an unknown id as it answers an unknown name.
    return tl::unexpected(groupUnknown(missing.front()));
  }
  for (const std::string& name : names) {
    if (!findByName(store, name)) {
      return tl::unexpected(groupUnknown(name));
    }
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  request->page = {};  // EC2 returns every group at once
  Page page =
      findResources(store, kind::kPlacementGroup, *request, groupValues, [&](const Resource& g) {
        const auto* a = g.as<PlacementGroupAttributes>();
        return names.empty() ||
               (a != nullptr && std::find(names.begin(), names.end(), a->name) != names.end());
      });
  const World& world = ctx.world;
  return pageResponse(ctx, "placementGroupSet", page,
                      [&](pugi::xml_node item, const Resource& g) { renderGroup(item, world, g); });
}

aws::ApiResult<std::string> deletePlacementGroup(ActionContext& ctx) {
  auto name = ctx.params.find("GroupName");
  if (!name) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter GroupName");
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  ResourceStore& store = ctx.engine.store();
  auto group = findByName(store, *name);
  if (!group) {
    return tl::unexpected(groupUnknown(*name));
  }
  (void)store.retire(kind::kPlacementGroup, group->id, "deleted", std::chrono::microseconds(0));
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  aws::xml::addBool(response.root(), "return", true);
  return response.str();
}

}  // namespace

void addPlacementGroupActions(ActionTable& table) {
  table["CreatePlacementGroup"] = {bucket::kMutating, createPlacementGroup};
  table["DescribePlacementGroups"] = {bucket::kDescribe, describePlacementGroups};
  table["DeletePlacementGroup"] = {bucket::kMutating, deletePlacementGroup};
}

aws::ApiResult<std::optional<Placement>> placementOf(ActionContext& ctx,
                                                     const LaunchTemplateData& data) {
  if (!data.placementGroupId && !data.placementGroupName) {
    if (data.partitionNumber) {
      return aws::apiFail("InvalidParameterValue",
                          "A partition number requires a partition placement group.");
    }
    return std::optional<Placement>();
  }
  ResourceStore& store = ctx.engine.store();
  std::optional<Resource> group;
  if (data.placementGroupId) {
    auto found = store.get(kind::kPlacementGroup, *data.placementGroupId);
    if (found && found->live()) {
      group = std::move(*found);
    }
  } else {
    group = findByName(store, *data.placementGroupName);
  }
  const auto* a = group ? group->as<PlacementGroupAttributes>() : nullptr;
  if (a == nullptr) {
    return tl::unexpected(
        groupUnknown(data.placementGroupId.value_or(data.placementGroupName.value_or(""))));
  }
  Placement out{group->id, a->name, std::nullopt};
  if (a->partitionCount == 0) {
    if (data.partitionNumber) {
      return aws::apiFail("InvalidParameterValue",
                          fmt::format("The placement group '{}' has no partitions.", a->name));
    }
    return std::optional<Placement>(std::move(out));
  }
  if (data.partitionNumber) {
    if (*data.partitionNumber < 1 || *data.partitionNumber > a->partitionCount) {
      return aws::apiFail(
          "InvalidParameterValue",
          fmt::format("Partition number {} is not in the placement group '{}' (1-{}).",
                      *data.partitionNumber, a->name, a->partitionCount));
    }
    out.partitionNumber = *data.partitionNumber;
    return std::optional<Placement>(std::move(out));
  }
  // EC2 spreads instances launched without a partition number over the partitions.
  std::map<int64_t, int64_t> running;
  for (int64_t p = 1; p <= a->partitionCount; ++p) {
    running[p] = 0;
  }
  for (const Resource& i : store.list(kind::kInstance)) {
    const auto* ia = i.as<InstanceAttributes>();
    if (i.live() && ia != nullptr && ia->placementGroupId == group->id && ia->partitionNumber) {
      ++running[*ia->partitionNumber];
    }
  }
  out.partitionNumber = std::min_element(running.begin(), running.end(), [](auto x, auto y) {
                          return x.second < y.second;
                        })->first;
  return std::optional<Placement>(std::move(out));
}

}  // namespace nodewright::emulators::ec2
