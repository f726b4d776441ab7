#include "apiserver/rest/object_rules.h"

#include "api/karpenter/nodepool.h"
#include "api/labels.h"
#include "apiserver/rest/object_meta.h"

namespace nodewright::apiserver::rest::rules {
namespace {

using api::Json;

bool isNamespace(const Resource& r) {
  return r.group.empty() && r.kind == "Namespace";
}

// ValidatePathSegmentName: RBAC names such as "system:controller:x" need only be usable in a
// URL path.
std::vector<std::string> pathSegmentNameErrors(const std::string& name) {
  if (name == "." || name == "..") {
    return {"may not be '" + name + "'"};
  }
  for (const char* bad : {"/", "%"}) {
    if (name.find(bad) != std::string::npos) {
      return {"may not contain '" + std::string(bad) + "'"};
    }
  }
  return {};
}

std::vector<std::string> nameErrors(const Resource& r, const std::string& name) {
  if (isNamespace(r)) {
    return api::dns1123LabelErrors(name);
  }
  if (r.group == "rbac.authorization.k8s.io") {
    return pathSegmentNameErrors(name);
  }
  return api::dns1123SubdomainErrors(name);
}

// Removes what the schema does not declare, as structural pruning does.
void prune(Json& value, const Json& schema) {
  if (!schema.is_object() || schema.value("x-kubernetes-preserve-unknown-fields", false)) {
    return;
  }
  if (value.is_object()) {
    auto props = schema.find("properties");
    auto additional = schema.find("additionalProperties");
    const bool anyKey =
        additional != schema.end() &&
        (additional->is_object() || (additional->is_boolean() && additional->get<bool>()));
    if (props == schema.end() && !anyKey) {
      return;  // an object without a declared shape
    }
    for (auto it = value.begin(); it != value.end();) {
      const Json* child = nullptr;
      if (props != schema.end() && props->contains(it.key())) {
        child = &(*props)[it.key()];
      } else if (anyKey && additional->is_object()) {
        child = &*additional;
      } else if (!anyKey) {
        it = value.erase(it);
        continue;
      }
      if (child) {
        prune(it.value(), *child);
      }
      ++it;
    }
  } else if (value.is_array()) {
    auto items = schema.find("items");
    if (items == schema.end()) {
      return;
    }
    for (auto& item : value) {
      prune(item, *items);
    }
  }
}

// Adds what `defaulted` has and `sent` lacks: the defaults.
void addMissing(Json& sent, const Json& defaulted) {
  if (sent.is_object() && defaulted.is_object()) {
    for (const auto& [key, value] : defaulted.items()) {
      auto it = sent.find(key);
      if (it == sent.end()) {
        sent[key] = value;
      } else {
        addMissing(*it, value);
      }
    }
  } else if (sent.is_array() && defaulted.is_array() && sent.size() == defaulted.size()) {
    for (size_t i = 0; i < sent.size(); ++i) {
      addMissing(sent[i], defaulted[i]);
    }
  }
}

}  // namespace

api::FieldErrors validateObjectMeta(const Resource& resource, const Json& object) {
  api::FieldErrors errors;
  const std::string name = meta::name(object);
  if (!name.empty()) {
    for (const auto& p : nameErrors(resource, name)) {
      errors.push_back({"metadata.name", api::fielderr::invalid(Json(name), p)});
    }
  }
  api::validateLabels(meta::labels(object), api::FieldPath("metadata.labels"), errors);
  return errors;
}

api::FieldErrors immutableFieldErrors(const Resource& resource, const Json& current,
                                      const Json& next) {
  api::FieldErrors errors;
  // NodePool's CEL transition rules (oldSelf): static and dynamic do not turn into each other.
  if (resource.model != nullptr && resource.group == "karpenter.sh" &&
      resource.kind == "NodePool") {
    return api::karpenter::validateNodePoolUpdate(current, next);
  }
  if (resource.group != "apps") {
    return errors;
  }
  const Json before = current.value("spec", Json::object()).value("selector", Json());
  const Json after = next.value("spec", Json::object()).value("selector", Json());
  if (before != after) {
    errors.push_back({"spec.selector", api::fielderr::invalid(after, "field is immutable")});
  }
  return errors;
}

Json customResourceForm(const Json& sent, const Json& defaulted, const Json& schema) {
  Json out = sent;
  prune(out, schema);
  // As upstream, the root's type and object metadata survive pruning whether or not a schema
  // (often just `spec` with x-kubernetes-preserve-unknown-fields) declares them.
  if (out.is_object() && sent.is_object()) {
    for (const char* kept : {"apiVersion", "kind", "metadata"}) {
      if (auto it = sent.find(kept); it != sent.end()) {
        out[kept] = *it;
      }
    }
  }
  addMissing(out, defaulted);
  return out;
}

}  // namespace nodewright::apiserver::rest::rules
