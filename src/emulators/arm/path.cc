#include "emulators/arm/path.h"
#include "core/text.h"

#include <fmt/format.h>

namespace nodewright::emulators::arm {
namespace {

ArmError notFoundPath(std::string_view path) {
  return armError(
      404, "NotFound",
      fmt::format("No HTTP resource was found that matches the request URI '{}'.", path));
}

std::string join(const std::vector<std::string>& segments, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    out += "/" + segments[i];
  }
  return out;
}

ArmResult<ResourcePath> parseRoleAssignment(const std::vector<std::string>& segs, size_t at,
                                            std::string_view path) {
  ResourcePath out;
  out.type = findType(kRoleAssignments);
  if (at == 2) {
    if (!core::equalsIgnoreCase(segs[0], "subscriptions")) {
      return tl::unexpected(notFoundPath(path));
    }
    out.subscription = segs[1];
    out.parentId = "/subscriptions/" + segs[1];
  } else {
    auto scope = parseResourcePath(join(segs, 0, at));
    if (!scope || scope->collection) {
      return tl::unexpected(notFoundPath(path));
    }
    out.subscription = scope->subscription;
    out.resourceGroup = scope->resourceGroup;
    out.parentId = scope->id;
  }
  const size_t rest = segs.size() - at - 3;
  if (rest > 1) {
    return tl::unexpected(notFoundPath(path));
  }
  out.collection = rest == 0;
  out.id = out.parentId + "/providers/Microsoft.Authorization/roleAssignments";
  if (!out.collection) {
    out.name = segs.back();
    out.id += "/" + out.name;
  }
  return out;
}

}  // namespace

std::vector<std::string> splitPath(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    if (end > start) {
      out.emplace_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

std::string ResourcePath::groupId() const {
  if (resourceGroup.empty()) {
    return {};
  }
  return "/subscriptions/" + subscription + "/resourceGroups/" + resourceGroup;
}

ArmResult<ResourcePath> parseResourcePath(std::string_view path) {
  const std::vector<std::string> segs = splitPath(path);
  for (size_t i = 0; i + 2 < segs.size(); ++i) {
    if (core::equalsIgnoreCase(segs[i], "providers") &&
        core::equalsIgnoreCase(segs[i + 1], "Microsoft.Authorization") &&
        core::equalsIgnoreCase(segs[i + 2], "roleAssignments")) {
      return parseRoleAssignment(segs, i, path);
    }
  }
  if (segs.size() < 3 || !core::equalsIgnoreCase(segs[0], "subscriptions") ||
      !core::equalsIgnoreCase(segs[2], "resourceGroups")) {
    return tl::unexpected(notFoundPath(path));
  }
  ResourcePath out;
  out.subscription = segs[1];
  const std::string subscriptionId = "/subscriptions/" + segs[1];
  if (segs.size() <= 4) {
    out.type = &resourceGroupType();
    out.parentId = subscriptionId;
    out.id = subscriptionId + "/resourceGroups";
    out.collection = segs.size() == 3;
    if (!out.collection) {
      out.resourceGroup = out.name = segs[3];
      out.id += "/" + out.name;
    }
    return out;
  }
  out.resourceGroup = segs[3];
  const size_t rest = segs.size() < 7 ? 0 : segs.size() - 6;
  if (!core::equalsIgnoreCase(segs[4], "providers") || rest == 0 || rest > 4) {
    return tl::unexpected(notFoundPath(path));
  }
  const std::string& ns = segs[5];
  std::string typeName = ns + "/" + segs[6];
  if (rest >= 3) {
    typeName += "/" + segs[8];
  }
  out.type = findType(typeName);
  if (out.type == nullptr || out.type->name == kRoleAssignments) {
    bool knownNamespace = false;
    for (const ResourceType& t : resourceTypes()) {
      knownNamespace = knownNamespace || core::equalsIgnoreCase(t.nameSpace(), ns);
    }
    if (!knownNamespace) {
      return armFail(400, "InvalidResourceNamespace",
                     fmt::format("The resource namespace '{}' is invalid.", ns));
    }
    return armFail(404, "InvalidResourceType",
                   fmt::format("The resource type '{}' could not be found in the namespace '{}'.",
                               typeName.substr(ns.size() + 1), ns));
  }
  // Canonical casing: the table's for namespace and types, the request's for names.
  const std::vector<std::string> typeSegs = splitPath(out.type->name);
  const std::string groupId = out.groupId();
  std::string id = groupId + "/providers/" + typeSegs[0] + "/" + typeSegs[1];
  if (rest >= 2) {
    id += "/" + segs[7];
  }
  if (rest >= 3) {
    out.parentId = id;
    id += "/" + typeSegs[2];
  } else {
    out.parentId = groupId;
  }
  if (rest == 4) {
    id += "/" + segs[9];
  }
  out.collection = rest % 2 == 1;
  if (!out.collection) {
    out.name = segs.back();
  }
  out.id = std::move(id);
  return out;
}

ArmResult<ResourcePath> parseReference(std::string_view id, std::string_view where) {
  auto parsed = parseResourcePath(id);
  if (!id.starts_with("/") || !parsed || parsed->collection) {
    return armFail(400, "LinkedInvalidPropertyId",
                   fmt::format("Property id '{}' at path '{}' is invalid. Expect fully qualified "
                               "resource Id that start with '/subscriptions/{{subscriptionId}}' or "
                               "'/providers/{{resourceProviderNamespace}}/'.",
                               id, where));
  }
  return parsed;
}

}  // namespace nodewright::emulators::arm
