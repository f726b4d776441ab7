#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "apiserver/errors.h"
#include "apiserver/rest/objects.h"
#include "core/time.h"

// Metadata rules shared by create, update and delete, on the JSON form of an object.
namespace nodewright::apiserver::rest::meta {

std::string name(const api::Json& object);
std::string namespaceOf(const api::Json& object);
std::string uid(const api::Json& object);
std::vector<std::string> finalizers(const api::Json& object);
api::Labels labels(const api::Json& object);
bool deletionPending(const api::Json& object);

std::string newUid();
// Five characters from kube's alphabet for generateName (no vowels, no confusable digits).
std::string randomSuffix();

// A request body's apiVersion and kind, read as kube-apiserver's decoder reads them: built-in
// kinds take what the body leaves out from the endpoint; custom resources must name their kind.
// A mismatch is kube's 400 (or 422 for a custom resource's kind).
std::optional<ApiError> decodeTypeMeta(const Resource& resource, api::Json& body);
// decodeTypeMeta; the namespace is filled from the URL or must match it.
std::optional<ApiError> checkTypeAndScope(const Resource& resource, api::Json& body,
                                          std::string_view ns);
// No finalizer may be added once deletion started.
std::optional<ApiError> checkFinalizers(const Resource& resource, const api::Json& current,
                                        const api::Json& next);
// Carries server-owned metadata of `current` into `next`.
void keepImmutable(const api::Json& current, api::Json& next);
void copyServerFields(const api::Json& from, api::Json& to);
api::FieldErrors validateUntyped(const api::Json& object);
// A CustomResourceDefinition is accepted and established as soon as it is stored.
void acceptCrd(api::Json& crd);

struct DeletionPlan {
  bool immediate = false;  // remove now
  bool changed = false;    // otherwise: whether `object` was marked (deletionTimestamp, ...)
};
// Decides between removal and marking for deletion (finalizers, propagation finalizers, pod
// grace periods, namespace termination), updating `object` when marking.
DeletionPlan planDeletion(const Resource& resource, api::Json& object, const DeleteOptions& options,
                          core::TimePoint now);

}  // namespace nodewright::apiserver::rest::meta
