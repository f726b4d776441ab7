#include "controllers/capz/azuremachine/specs.h"

namespace nodewright::controllers::capz::azuremachine {

namespace {

bool provisioningFailed(const api::Json& existing) {
  auto props = existing.is_object() ? existing.find("properties") : existing.end();
  if (props == existing.end() || !props->is_object()) {
    return false;
  }
  auto state = props->find("provisioningState");
  return state != props->end() && state->is_string() && state->get<std::string>() == "Failed";
}

}  // namespace

core::Result<std::optional<api::Json>> CreateOnlyResource::parameters(
    const api::Json& existing) const {
  if (!existing.is_null() && !provisioningFailed(existing)) {
    return std::optional<api::Json>();
  }
  return std::optional<api::Json>(body_);
}

core::Result<std::optional<api::Json>> RoleAssignmentResource::parameters(
    const api::Json& existing) const {
  if (!existing.is_null()) {
    return std::optional<api::Json>();
  }
  if (!principalId_ || principalId_->empty()) {
    return tl::unexpected(
        core::Error::invalid("the virtual machine has no system-assigned identity principal yet"));
  }
  return std::optional<api::Json>(api::Json{
      {"properties", {{"roleDefinitionId", roleDefinitionId_}, {"principalId", *principalId_}}}});
}

core::Result<std::optional<api::Json>> VmTagsResource::parameters(const api::Json& existing) const {
  if (existing.is_null()) {
    // The virtualmachine service creates the VM with its tags.
    return std::optional<api::Json>();
  }
  // json's value() throws on a non-object: read only what has the expected shape.
  api::Json tags = api::Json::object();
  if (auto found = existing.is_object() ? existing.find("tags") : existing.end();
      found != existing.end() && found->is_object()) {
    tags = *found;
  }
  bool changed = false;
  for (const auto& [key, value] : tags_) {
    auto it = tags.find(key);
    if (it == tags.end() || *it != value) {
      tags[key] = value;
      changed = true;
    }
  }
  if (!changed) {
    return std::optional<api::Json>();
  }
  api::Json body = existing.is_object() ? existing : api::Json::object();
  for (const char* readOnly : {"id", "name", "type", "etag", "resources"}) {
    body.erase(readOnly);
  }
  if (auto props = body.find("properties"); props != body.end() && props->is_object()) {
    props->erase("provisioningState");
    props->erase("instanceView");
  }
  body["tags"] = std::move(tags);
  return std::optional<api::Json>(std::move(body));
}

}  // namespace nodewright::controllers::capz::azuremachine
