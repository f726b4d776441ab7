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
  const api::Json properties = existing.value("properties", api::Json::object());
  if (properties.is_object() && properties.value("provisioningState", "") == "Failed") {
    return std::optional<api::Json>(body_);
  }
  if (containsJson(existing, body_)) {
    return std::optional<api::Json>();
  }
  return std::optional<api::Json>(body_);
}

}  // namespace nodewright::controllers::capz
