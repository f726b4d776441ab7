#include "apiserver/patch/strategic_merge.h"

#include <algorithm>
#include <exception>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "apiserver/patch/patch_meta.h"
#include "apiserver/patch/strategic_internal.h"

namespace nodewright::apiserver::patch {
namespace detail {
namespace {

using api::Json;

constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";

core::Error invalid(std::string_view message) {
  return core::Error::invalid(std::string(message));
}

// The value a patch gives a key the original lacks: directives applied, nulls dropped.
core::Result<Json> intoAbsent(const Json& patch, const FieldMeta* field) {
  if (patch.is_object()) {
    return mergeMap(Json::object(), patch, field != nullptr ? field->type : nullptr);
  }
  if (patch.is_array() && field != nullptr && field->mergeList) {
    return mergeList(Json::array(), patch, *field);
  }
  return patch;
}

// Clears the original's keys missing from the "$retainKeys" list; every key the patch sets
// must be listed.
core::Status applyRetainKeys(Json& original, const Json& patch) {
  auto directive = patch.find(kRetainKeys);
  if (directive == patch.end()) {
    return core::ok();
  }
  if (!directive->is_array()) {
    return core::fail(invalid("invalid patch format of retainKeys"));
  }
  std::set<std::string, std::less<>> retained;
  for (const Json& key : *directive) {
    if (!key.is_string()) {
      return core::fail(invalid("invalid patch format of retainKeys"));
    }
    retained.insert(key.get<std::string>());
  }
  for (const auto& [key, value] : patch.items()) {
    if (!value.is_null() && !key.starts_with("$") && !retained.contains(key)) {
      return core::fail(invalid("patch content doesn't match retainKeys list"));
    }
  }
  std::vector<std::string> cleared;
  for (const auto& [key, value] : original.items()) {
    if (!retained.contains(key)) {
      cleared.push_back(key);
    }
  }
  for (const std::string& key : cleared) {
    original.erase(key);
  }
  return core::ok();
}

core::Status deleteFromPrimitiveList(Json& original, std::string_view key, const Json& values) {
  if (key.size() <= kDeleteFromPrimitiveList.size() ||
      key[kDeleteFromPrimitiveList.size()] != '/' || !values.is_array()) {
    return core::fail(invalid("invalid patch format of primitive list"));
  }
  auto list = original.find(key.substr(kDeleteFromPrimitiveList.size() + 1));
  if (list == original.end() || !list->is_array()) {
    return core::ok();
  }
  Json kept = Json::array();
  for (const Json& item : *list) {
    if (std::find(values.begin(), values.end(), item) == values.end()) {
      kept.push_back(item);
    }
  }
  *list = std::move(kept);
  return core::ok();
}

core::Result<Json> mergeField(const Json* live, const Json& value, const FieldMeta* field) {
  if (live != nullptr && live->is_object() && value.is_object()) {
    return mergeMap(*live, value, field != nullptr ? field->type : nullptr);
  }
  if (live != nullptr && live->is_array() && value.is_array() && field != nullptr &&
      field->mergeList) {
    return mergeList(*live, value, *field);
  }
  return intoAbsent(value, field);
}

}  // namespace

core::Error unknownPatchType(const Json& directive, const Json& map) {
  std::string value =
      directive.is_string() ? directive.get<std::string>() : api::dumpJson(directive);
  return invalid(fmt::format("unknown patch type: {} in map: {}", value, api::dumpJson(map)));
}

core::Result<Json> mergeMap(Json original, Json patch, const TypeMeta* type) {
  if (auto directive = patch.find(kPatchDirective); directive != patch.end()) {
    if (*directive == "delete") {
      return Json::object();
    }
    if (*directive != "replace" && *directive != "merge") {
      return core::fail(unknownPatchType(*directive, patch));
    }
    if (*directive == "replace") {
      original = Json::object();
    }
    patch.erase(directive);
  }
  if (!original.is_object()) {
    original = Json::object();
  }
  if (auto retained = applyRetainKeys(original, patch); !retained) {
    return core::fail(retained.error());
  }
  std::set<std::string> done;
  if (auto sorted = applyElementOrders(original, patch, type, done); !sorted) {
    return core::fail(sorted.error());
  }
  for (const auto& [key, value] : patch.items()) {
    if (done.contains(key) || key == kRetainKeys) {
      continue;
    }
    if (key.starts_with(kDeleteFromPrimitiveList)) {
      if (auto deleted = deleteFromPrimitiveList(original, key, value); !deleted) {
        return core::fail(deleted.error());
      }
      continue;
    }
    if (value.is_null()) {
      original.erase(key);
      continue;
    }
    auto live = original.find(key);
    auto merged = mergeField(live == original.end() ? nullptr : &*live, value,
                             type != nullptr ? type->field(key) : nullptr);
    if (!merged) {
      return core::fail(merged.error());
    }
    original[key] = std::move(*merged);
  }
  return original;
}

}  // namespace detail

bool isStrategicKind(std::string_view group, std::string_view kind) {
  return builtinKindMeta(group, kind) != nullptr;
}

core::Result<api::Json> applyStrategicMergePatch(std::string_view group, std::string_view kind,
                                                 const api::Json& original,
                                                 const api::Json& patch) {
  const TypeMeta* type = builtinKindMeta(group, kind);
  if (type == nullptr) {
    return core::fail(core::Error::invalid(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/apply-patch+yaml"));
  }
  if (!patch.is_object()) {
    return core::fail(core::Error::invalid("invalid JSON document"));
  }
  try {
    return detail::mergeMap(original, patch, type);
  } catch (const std::exception& e) {
    return core::fail(
        core::Error::internal(fmt::format("applying strategic merge patch: {}", e.what())));
  }
}

}  // namespace nodewright::apiserver::patch
