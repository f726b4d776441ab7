#include "api/meta.h"

#include <set>

namespace nodewright::api {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<OwnerReference>) {
  static const StructSchema s =
      StructBuilder<OwnerReference>("OwnerReference",
                                    "Identifies an owning object, for garbage collection.")
          .field<&OwnerReference::apiVersion>("apiVersion", "API version of the referent.")
          .required()
          .field<&OwnerReference::kind>("kind", "Kind of the referent.")
          .required()
          .field<&OwnerReference::name>("name", "Name of the referent.")
          .required()
          .field<&OwnerReference::uid>("uid", "UID of the referent.")
          .required()
          .field<&OwnerReference::controller>("controller",
                                              "If true, this reference points to the managing "
                                              "controller.")
          .field<&OwnerReference::blockOwnerDeletion>(
              "blockOwnerDeletion", "If true, the owner cannot be deleted before this object.")
          .build();
  return s;
}

const StructSchema& describe(Tag<ObjectMeta>) {
  static const StructSchema s =
      StructBuilder<ObjectMeta>("ObjectMeta", "Standard object metadata.")
          .field<&ObjectMeta::name>("name", "Name must be unique within a namespace.")
          .field<&ObjectMeta::generateName>(
              "generateName", "Prefix the server uses to generate a unique name if none is given.")
          .field<&ObjectMeta::namespace_>("namespace", "The namespace of a namespaced object.")
          .field<&ObjectMeta::uid>("uid", "Unique identifier set by the server.")
          .field<&ObjectMeta::resourceVersion>(
              "resourceVersion", "Opaque version used for optimistic concurrency and watches.")
          .field<&ObjectMeta::generation>(
              "generation", "Sequence number of the desired state; set by the server.")
          .field<&ObjectMeta::creationTimestamp>("creationTimestamp",
                                                 "When the object was created; set by the server.")
          .field<&ObjectMeta::deletionTimestamp>(
              "deletionTimestamp", "When graceful deletion was requested; set by the server.")
          .field<&ObjectMeta::deletionGracePeriodSeconds>(
              "deletionGracePeriodSeconds", "Seconds allowed for graceful termination.")
          .field<&ObjectMeta::labels>("labels", "Map of string keys and values for selection.")
          .field<&ObjectMeta::annotations>("annotations", "Unstructured key value map.")
          .field<&ObjectMeta::ownerReferences>("ownerReferences", "Objects this object depends on.")
          .field<&ObjectMeta::finalizers>(
              "finalizers", "Must be empty before the object is deleted from storage.")
          .field<&ObjectMeta::managedFields>("managedFields",
                                             "Server-side apply field ownership, kept verbatim.")
          .build();
  return s;
}

const StructSchema& describe(Tag<ObjectReference>) {
  static const StructSchema s =
      StructBuilder<ObjectReference>("ObjectReference", "A reference to another object.")
          .field<&ObjectReference::apiVersion>("apiVersion", "API version of the referent.")
          .field<&ObjectReference::kind>("kind", "Kind of the referent.")
          .field<&ObjectReference::name>("name", "Name of the referent.")
          .field<&ObjectReference::namespace_>("namespace", "Namespace of the referent.")
          .field<&ObjectReference::uid>("uid", "UID of the referent.")
          .field<&ObjectReference::resourceVersion>("resourceVersion",
                                                    "Specific resourceVersion referred to.")
          .field<&ObjectReference::fieldPath>("fieldPath", "A piece of the object, if any.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Condition>) {
  static const StructSchema s =
      StructBuilder<Condition>("Condition", "One aspect of the current state of this resource.")
          .field<&Condition::type>("type", "Type of condition in CamelCase.")
          .required()
          .maxLength(316)
          .field<&Condition::status>("status", "Status of the condition: True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&Condition::observedGeneration>(
              "observedGeneration", "The .metadata.generation this condition was set for.")
          .min(0)
          .field<&Condition::lastTransitionTime>(
              "lastTransitionTime", "Last time the condition changed from one status to another.")
          .field<&Condition::reason>("reason",
                                     "Programmatic identifier of the last transition, CamelCase.")
          .maxLength(1024)
          .field<&Condition::message>("message", "Human readable details of the last transition.")
          .maxLength(32768)
          .build();
  return s;
}

void validateConditionTypes(const std::vector<std::string>& types, const FieldPath& conditions,
                            FieldErrors& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i].empty() && !seen.insert(types[i]).second) {
      errors.push_back(
          {conditions.index(i).child("type").str(), fielderr::duplicate(Json(types[i]))});
    }
  }
}

}  // namespace nodewright::api
