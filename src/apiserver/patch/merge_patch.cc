#include "apiserver/patch/merge_patch.h"

#include <exception>

#include <fmt/format.h>

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

Json mergeValue(const Json* target, const Json& patch) {
  if (!patch.is_object()) {
    return patch;
  }
  Json result = target != nullptr && target->is_object() ? *target : Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(key);
      continue;
    }
    auto it = result.find(key);
    Json merged = mergeValue(it == result.end() ? nullptr : &*it, value);
    result[key] = std::move(merged);
  }
  return result;
}

}  // namespace

core::Result<Json> applyMergePatch(const Json& original, const Json& patch) {
  try {
    return mergeValue(&original, patch);
  } catch (const std::exception& e) {
    return core::fail(core::Error::internal(fmt::format("applying merge patch: {}", e.what())));
  }
}

}  // namespace nodewright::apiserver::patch
