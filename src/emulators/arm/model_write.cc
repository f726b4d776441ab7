// PUT and PATCH: the checks before anything changes (container, location, references, type
// rules) and what the new body is.
#include <set>

#include <fmt/format.h>

#include "core/text.h"
#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

using api::Json;

std::string normalizeLocation(const std::string& location) {
  std::string out;
  for (char c : core::lowerAscii(location)) {
    if (c != ' ') {
      out += c;
    }
  }
  return out;
}

// The values at a reference path ("a.b[].c.id"), each with where it is ("a.b[0].c.id").
void collect(const Json& node, std::string_view path, const std::string& where,
             std::vector<std::pair<std::string, const Json*>>& out) {
  if (path.empty()) {
    if (!node.is_null()) {
      out.emplace_back(where, &node);
    }
    return;
  }
  const size_t dot = path.find('.');
  std::string_view segment = path.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? "" : path.substr(dot + 1);
  const bool each = segment.ends_with("[]");
  if (each) {
    segment.remove_suffix(2);
  }
  if (!node.is_object()) {
    return;
  }
  auto it = node.find(std::string(segment));
  if (it == node.end() || it->is_null()) {
    return;
  }
  const std::string at = where.empty() ? std::string(segment) : where + "." + std::string(segment);
  if (!each) {
    collect(*it, rest, at, out);
  } else if (it->is_array()) {
    for (size_t i = 0; i < it->size(); ++i) {
      collect((*it)[i], rest, fmt::format("{}[{}]", at, i), out);
    }
  }
}

ArmError invalidContent(std::string detail) {
  return armError(400, "InvalidRequestContent",
                  "The request content was invalid and could not be deserialized: " + detail);
}

}  // namespace

Reply ArmModel::put(const ResourcePath& path, const Json& body, const RequestContext& ctx) {
  const ResourceType& type = *path.type;
  std::lock_guard lock(writeMu_);
  auto container = checkContainer(path, ctx);
  if (!container) {
    return errorReply(container.error());
  }
  auto existing = find(type, path.key());
  if (existing && isBusy(existing->state)) {
    return errorReply(anotherOperation(*existing, ctx));
  }
  if (!existing && type.createdByParent) {
    return notFound(path);
  }
  Json stored = body;
  std::vector<Prepared> items;
  std::string location = container->location;
  if (type.tracked && body.is_object() && body.contains("location") &&
      body["location"].is_string()) {
    location = normalizeLocation(body["location"].get<std::string>());
  }
  auto children = body.is_object() && body.contains("properties") && body["properties"].is_object()
                      ? prepareInlineChildren(path, stored, location, ctx)
                      : ArmResult<std::vector<Prepared>>();
  if (!children) {
    return errorReply(children.error());
  }
  auto resource = prepare(path, std::move(stored), existing, *container);
  if (!resource) {
    return errorReply(resource.error());
  }
  items.push_back(Prepared{path, std::move(*resource), existing});
  for (Prepared& child : *children) {
    items.push_back(std::move(child));
  }
  return write(std::move(items), "PUT", ctx, putOp(type), type.syncPut);
}

Reply ArmModel::patch(const ResourcePath& path, const Json& body, const RequestContext& ctx) {
  const ResourceType& type = *path.type;
  std::lock_guard lock(writeMu_);
  auto container = checkContainer(path, ctx);
  if (!container) {
    return errorReply(container.error());
  }
  auto existing = find(type, path.key());
  if (!existing) {
    return notFound(path);
  }
  if (isBusy(existing->state)) {
    return errorReply(anotherOperation(*existing, ctx));
  }
  if (!body.is_object()) {
    return errorReply(invalidContent("the body must be a JSON object"));
  }
  // JSON merge patch, except that tags are replaced whole, as ARM's PATCH does.
  Json merged = data(*existing).body;
  Json changes = body;
  if (auto tags = changes.find("tags"); tags != changes.end()) {
    merged["tags"] = *tags;
    changes.erase(tags);
  }
  merged.merge_patch(changes);
  auto resource = prepare(path, std::move(merged), existing, *container);
  if (!resource) {
    return errorReply(resource.error());
  }
  std::vector<Prepared> items;
  items.push_back(Prepared{path, std::move(*resource), existing});
  return write(std::move(items), "PATCH", ctx, patchOp(type), type.syncPatch);
}

ArmResult<ArmModel::Container> ArmModel::checkContainer(const ResourcePath& path,
                                                        const RequestContext& ctx) {
  Container out;
  const ResourceType& groupType = resourceGroupType();
  if (path.type == &groupType) {
    return out;
  }
  if (!path.resourceGroup.empty()) {
    auto group = find(groupType, core::lowerAscii(path.groupId()));
    if (!group) {
      return armFail(404, "ResourceGroupNotFound",
                     fmt::format("Resource group '{}' could not be found.", path.resourceGroup));
    }
    if (group->state == "Deleting") {
      return armFail(409, "ResourceGroupBeingDeleted",
                     fmt::format("The resource group '{}' is in deprovisioning state and cannot "
                                 "perform this operation.",
                                 path.resourceGroup));
    }
    out.location = data(*group).location;
  }
  // A child's parent, or a role assignment's scope when that is a resource.
  const bool child = !path.type->parent.empty();
  const bool resourceScope = path.type->name == kRoleAssignments &&
                             core::lowerAscii(path.parentId) != core::lowerAscii(path.groupId()) &&
                             !path.resourceGroup.empty();
  if (child || resourceScope) {
    auto parentPath = parseResourcePath(path.parentId);
    auto parent = parentPath ? find(*parentPath->type, parentPath->key()) : std::nullopt;
    if (!parent || parent->state == "Deleting") {
      const std::string name = parentPath ? parentPath->name : path.parentId;
      return armFail(404, "ParentResourceNotFound",
                     fmt::format("Can not perform requested operation on nested resource. Parent "
                                 "resource '{}' not found.",
                                 name));
    }
    if (child && isBusy(parent->state)) {
      return tl::unexpected(anotherOperation(*parent, ctx));
    }
    out.location = data(*parent).location;
  }
  return out;
}

ArmResult<std::shared_ptr<ArmResource>> ArmModel::prepare(const ResourcePath& path, Json body,
                                                          const std::optional<Resource>& existing,
                                                          const Container& container) {
  const ResourceType& type = *path.type;
  if (!body.is_object()) {
    return tl::unexpected(invalidContent("the body must be a JSON object"));
  }
  auto props = body.find("properties");
  if (props != body.end() && !props->is_object() && !props->is_null()) {
    return tl::unexpected(invalidContent("'properties' must be an object"));
  }
  if (props == body.end() || props->is_null()) {
    body["properties"] = Json::object();
  }
  body["properties"].erase("provisioningState");
  std::string location = container.location;
  if (type.tracked) {
    auto loc = body.find("location");
    if (loc == body.end() || !loc->is_string() || loc->get_ref<const std::string&>().empty()) {
      return armFail(400, "LocationRequired",
                     "The location property is required for this definition.");
    }
    location = normalizeLocation(loc->get<std::string>());
    if (existing && data(*existing).location != location) {
      return armFail(
          400, "InvalidResourceLocation",
          fmt::format("The resource '{}' already exists in location '{}' in resource "
                      "group '{}'. A resource with the same name cannot be created in "
                      "location '{}'. Please select a new resource name.",
                      path.name, data(*existing).location, path.resourceGroup, location));
    }
    body["location"] = location;
  }
  if (auto valid = validate(path, body); !valid) {
    return tl::unexpected(valid.error());
  }
  auto refs = checkReferences(path, body);
  if (!refs) {
    return tl::unexpected(refs.error());
  }
  auto out = std::make_shared<ArmResource>();
  out->id = existing ? data(*existing).id : path.id;
  out->type = &type;
  out->parentKey = path.parentKey();
  out->location = location;
  out->refs = std::move(*refs);
  out->nextInstance = existing ? data(*existing).nextInstance : 0;
  if (auto decorated = decorate(path, body, existing ? &data(*existing).body : nullptr);
      !decorated) {
    return tl::unexpected(decorated.error());
  }
  // ARM's member order: id, name and type first.
  Json ordered = {
      {"id", out->id},
      {"name", existing && data(*existing).body.contains("name") ? data(*existing).body["name"]
                                                                 : Json(path.name)},
      {"type", type.name}};
  for (auto& [key, value] : body.items()) {
    if (key != "id" && key != "name" && key != "type") {
      ordered[key] = std::move(value);
    }
  }
  out->body = std::move(ordered);
  return out;
}

ArmResult<std::vector<std::string>> ArmModel::checkReferences(const ResourcePath& path,
                                                              const Json& body) {
  std::vector<std::string> refs;
  for (const ResourceType::Reference& ref : path.type->references) {
    std::vector<std::pair<std::string, const Json*>> found;
    collect(body, ref.path, "", found);
    if (ref.required && found.empty()) {
      return armFail(400, "InvalidParameter",
                     fmt::format("Required parameter '{}' is missing (null).", ref.path));
    }
    for (const auto& [where, value] : found) {
      const std::string id = value->is_string() ? value->get<std::string>() : value->dump();
      auto target = parseReference(id, where);
      if (!target) {
        return tl::unexpected(target.error());
      }
      auto r = find(*target->type, target->key());
      if (!r || r->state == "Deleting") {
        return armFail(400, "InvalidResourceReference",
                       fmt::format("Resource {} referenced by resource {} was not found. Please "
                                   "make sure that the referenced resource exists, and that both "
                                   "resources are in the same region.",
                                   id, path.id));
      }
      refs.push_back(target->key());
    }
  }
  return refs;
}

// A parent PUT that lists its inline children ("subnets") defines them: stored ones it leaves out
// are deleted, and the PUT fails (the child type's inUseCode) when one of those is in use. A PUT
// without the property, or with null, keeps them: that is how ARM has answered virtual network
// PUTs since 2024 ("Azure Virtual Network now supports updates without subnet property"), and
// what the SDKs' subnet-by-subnet flow and CAPZ rely on (the vnet first, then each subnet).
ArmResult<std::vector<ArmModel::Prepared>> ArmModel::prepareInlineChildren(
    const ResourcePath& parent, Json& body, const std::string& location,
    const RequestContext& ctx) {
  std::vector<Prepared> out;
  std::vector<Resource> dropped;
  for (const ResourceType* childType : childTypes(*parent.type)) {
    Json& props = body["properties"];
    auto it = props.find(childType->inlineField);
    if (childType->inlineField.empty() || it == props.end()) {
      continue;
    }
    Json list = std::move(*it);
    props.erase(childType->inlineField);
    if (list.is_null()) {
      continue;
    }
    if (!list.is_array()) {
      return tl::unexpected(
          invalidContent("'properties." + childType->inlineField + "' must be an array"));
    }
    std::set<std::string> listed;
    for (Json& item : list) {
      auto name = item.is_object() ? item.find("name") : item.end();
      if (!item.is_object() || name == item.end() || !name->is_string()) {
        return tl::unexpected(
            invalidContent("every element of '" + childType->inlineField + "' needs a name"));
      }
      ResourcePath path;
      path.type = childType;
      path.subscription = parent.subscription;
      path.resourceGroup = parent.resourceGroup;
      path.name = name->get<std::string>();
      path.parentId = parent.id;
      path.id = parent.id + "/" + childType->leaf() + "/" + path.name;
      listed.insert(path.key());
      auto existing = find(*childType, path.key());
      if (existing && isBusy(existing->state)) {
        return tl::unexpected(anotherOperation(*existing, ctx));
      }
      auto resource = prepare(path, std::move(item), existing, Container{location});
      if (!resource) {
        return tl::unexpected(resource.error());
      }
      out.push_back(Prepared{std::move(path), std::move(*resource), std::move(existing)});
    }
    for (Resource& stored : childrenOf(parent.key())) {
      if (stored.type != childType->key() || listed.contains(stored.id) ||
          stored.state == "Deleting") {
        continue;
      }
      if (isBusy(stored.state)) {
        return tl::unexpected(anotherOperation(stored, ctx));
      }
      dropped.push_back(std::move(stored));
    }
  }
  // Inline children have no children of their own.
  if (auto unused = checkNotInUse(dropped); !unused) {
    return tl::unexpected(unused.error());
  }
  for (Resource& r : dropped) {
    auto path = parseResourcePath(data(r).id);
    if (!path) {
      return tl::unexpected(path.error());
    }
    Prepared gone;
    gone.path = std::move(*path);
    gone.resource = std::make_shared<ArmResource>(data(r));
    gone.existing = std::move(r);
    gone.remove = true;
    out.push_back(std::move(gone));
  }
  return out;
}

}  // namespace nodewright::emulators::arm
