#include "apiserver/rest/schema_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "api/karpenter/transition_rules.h"

namespace nodewright::apiserver::rest::rules {
namespace {

using api::FieldPath;
using api::Json;

void walkEnums(const Json& value, const Json& schema, const FieldPath& path,
               api::FieldErrors& errors) {
  if (!schema.is_object()) {
    return;
  }
  if (auto it = schema.find("enum"); it != schema.end() && it->is_array() && value.is_string() &&
                                     value.get<std::string>().empty()) {
    std::vector<std::string> allowed;
    for (const Json& e : *it) {
      if (e.is_string()) {
        allowed.push_back(e.get<std::string>());
      }
    }
    if (std::find(allowed.begin(), allowed.end(), "") == allowed.end()) {
      errors.push_back({path.str(), api::fielderr::unsupported(value, allowed)});
    }
    return;
  }
  if (value.is_object()) {
    auto props = schema.find("properties");
    auto extra = schema.find("additionalProperties");
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (props != schema.end() && props->contains(it.key())) {
        walkEnums(it.value(), (*props)[it.key()],
                  path.str().empty() ? FieldPath(it.key()) : path.child(it.key()), errors);
      } else if (extra != schema.end() && extra->is_object()) {
        walkEnums(it.value(), *extra, path.key(it.key()), errors);
      }
    }
  } else if (value.is_array()) {
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        walkEnums(value[i], *items, path.index(i), errors);
      }
    }
  }
}

}  // namespace

api::FieldErrors explicitEmptyEnumErrors(const Json& sent, const Json& schema) {
  api::FieldErrors errors;
  walkEnums(sent, schema, FieldPath(), errors);
  return errors;
}

api::FieldErrors transitionErrors(const Resource& resource, const Json& current, const Json& next) {
  if (resource.model == nullptr || resource.group != "karpenter.sh") {
    return {};
  }
  if (resource.kind == "NodePool") {
    return api::karpenter::nodePoolTransitionErrors(current, next);
  }
  if (resource.kind == "NodeClaim") {
    return api::karpenter::nodeClaimTransitionErrors(current, next);
  }
  return {};
}

}  // namespace nodewright::apiserver::rest::rules
