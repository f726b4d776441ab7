#include "api/karpenter/transition_rules.h"

#include <initializer_list>
#include <string>

#include "api/object.h"
#include "api/registry.h"

namespace nodewright::api::karpenter {
namespace {

const Json& at(const Json& object, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* node = &object;
  for (const char* step : path) {
    if (!node->is_object()) {
      return kNull;
    }
    auto it = node->find(step);
    if (it == node->end()) {
      return kNull;
    }
    node = &*it;
  }
  return *node;
}

}  // namespace

FieldErrors nodePoolTransitionErrors(const Json& current, const Json& next) {
  FieldErrors errors;
  const Json& before = at(current, {"spec", "template", "spec", "nodeClassRef"});
  const Json& after = at(next, {"spec", "template", "spec", "nodeClassRef"});
  // A transition rule runs only when both sides have the field.
  if (!before.is_object() || !after.is_object()) {
    return errors;
  }
  const std::string path = "spec.template.spec.nodeClassRef";
  for (const char* field : {"group", "kind"}) {
    if (before.value(field, Json()) != after.value(field, Json())) {
      errors.push_back(
          {path, fielderr::invalid(Json("object"),
                                   "nodeClassRef." + std::string(field) + " is immutable")});
    }
  }
  return errors;
}

FieldErrors nodeClaimTransitionErrors(const Json& current, const Json& next) {
  FieldErrors errors;
  // Compared as the model reads them, as CEL compares typed values: a client that round-trips
  // the object (720h back as 720h0m0s, an empty list left out) has not changed the spec.
  DecodedObject before = decodeObject(current, builtinRegistry());
  DecodedObject after = decodeObject(next, builtinRegistry());
  if (!before.object || !after.object) {
    return errors;
  }
  const Json was = before.object->toJson().value("spec", Json());
  if (was != after.object->toJson().value("spec", Json())) {
    errors.push_back({"spec", fielderr::invalid(Json("object"), "spec is immutable")});
  }
  return errors;
}

}  // namespace nodewright::api::karpenter
