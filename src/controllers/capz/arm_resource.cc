#include "controllers/capz/arm_resource.h"

#include <fmt/format.h>

namespace nodewright::controllers::capz {

std::string resourceGroupId(std::string_view subscription, std::string_view resourceGroup) {
  return fmt::format("/subscriptions/{}/resourceGroups/{}", subscription, resourceGroup);
}

std::string resourceId(std::string_view subscription, std::string_view resourceGroup,
                       std::string_view type, std::string_view name) {
  return fmt::format("{}/providers/{}/{}", resourceGroupId(subscription, resourceGroup), type,
                     name);
}

std::string clusterOwnedTagKey(std::string_view clusterName) {
  return fmt::format("sigs.k8s.io_cluster-api-provider-azure_cluster_{}", clusterName);
}

api::capz::Tags ownedTags(std::string_view clusterName, std::string_view role,
                          std::string_view name, const api::capz::Tags& additional) {
  api::capz::Tags tags = additional;
  tags[clusterOwnedTagKey(clusterName)] = "owned";
  if (!role.empty()) {
    tags["sigs.k8s.io_cluster-api-provider-azure_role"] = std::string(role);
  }
  if (!name.empty()) {
    tags["Name"] = std::string(name);
  }
  return tags;
}

bool ownedByCluster(const api::Json& resource, std::string_view clusterName) {
  if (!resource.is_object()) {
    return false;
  }
  auto tags = resource.find("tags");
  if (tags == resource.end() || !tags->is_object()) {
    return false;
  }
  auto owned = tags->find(clusterOwnedTagKey(clusterName));
  return owned != tags->end() && owned->is_string() && owned->get<std::string>() == "owned";
}

std::string topLevelResourceId(std::string_view id) {
  // "/subscriptions/S/resourceGroups/G/providers/NS/type/name[/childType/child...]": nine
  // segments, counting the empty one before the leading slash.
  constexpr int kTopLevelSegments = 9;
  size_t pos = 0;
  for (int segment = 0; segment < kTopLevelSegments; ++segment) {
    pos = id.find('/', pos + (segment == 0 ? 0 : 1));
    if (pos == std::string_view::npos) {
      return std::string(id);
    }
  }
  return std::string(id.substr(0, pos));
}

bool containsJson(const api::Json& actual, const api::Json& desired) {
  if (desired.is_object()) {
    if (!actual.is_object()) {
      return false;
    }
    for (const auto& [key, value] : desired.items()) {
      auto found = actual.find(key);
      if (found == actual.end() || !containsJson(*found, value)) {
        return false;
      }
    }
    return true;
  }
  if (desired.is_array()) {
    if (!actual.is_array() || actual.size() != desired.size()) {
      return false;
    }
    for (size_t i = 0; i < desired.size(); ++i) {
      if (!containsJson(actual[i], desired[i])) {
        return false;
      }
    }
    return true;
  }
  return actual == desired;
}

core::Result<std::optional<api::Json>> DesiredResource::parameters(
    const api::Json& existing) const {
  if (existing.is_null()) {
    return std::optional<api::Json>(body_);
  }
  if (auto props = existing.is_object() ? existing.find("properties") : existing.end();
      props != existing.end() && props->is_object()) {
    auto state = props->find("provisioningState");
    if (state != props->end() && state->is_string() && state->get<std::string>() == "Failed") {
      return std::optional<api::Json>(body_);
    }
  }
  if (containsJson(existing, body_)) {
    return std::optional<api::Json>();
  }
  return std::optional<api::Json>(body_);
}

}  // namespace nodewright::controllers::capz
