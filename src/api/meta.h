#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/reflect/schema.h"

// Object metadata and the value types shared by every kind (metav1).
namespace nodewright::api {

struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
};
const reflect::StructSchema& describe(reflect::Tag<OwnerReference>);

struct ObjectMeta {
  std::string name;
  std::string generateName;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  int64_t generation = 0;
  core::Time creationTimestamp;
  std::optional<core::Time> deletionTimestamp;
  std::optional<int64_t> deletionGracePeriodSeconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> ownerReferences;
  std::vector<std::string> finalizers;
  Json managedFields;  // kept verbatim; server-side apply bookkeeping
};
const reflect::StructSchema& describe(reflect::Tag<ObjectMeta>);

struct ObjectReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  std::string fieldPath;
};
const reflect::StructSchema& describe(reflect::Tag<ObjectReference>);

// metav1.Condition, as Karpenter's kinds carry it.
struct Condition {
  std::string type;
  std::string status;
  int64_t observedGeneration = 0;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
};
const reflect::StructSchema& describe(reflect::Tag<Condition>);

// Adds apiVersion, kind and metadata to a kind's schema; T has those three members.
template <class T>
reflect::StructBuilder<T>& withTypeMeta(reflect::StructBuilder<T>& b) {
  b.template field<&T::apiVersion>(
      "apiVersion", "APIVersion defines the versioned schema of this representation of an object.");
  b.template field<&T::kind>("kind",
                             "Kind is a string value representing the REST resource this object "
                             "represents.");
  b.template field<&T::metadata>("metadata", "Standard object's metadata.");
  return b;
}

// Errors for a list of conditions whose types repeat: "status.conditions[2].type: Duplicate value".
void validateConditionTypes(const std::vector<std::string>& types, const FieldPath& conditions,
                            FieldErrors& errors);

}  // namespace nodewright::api
