#pragma once

#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"

// Server-side apply (PATCH with application/apply-patch+yaml), simplified to last writer wins.
//
// The applied configuration is merged into the live object:
// - objects merge key by key (x-kubernetes-map-type: atomic replaces them whole);
// - lists with x-kubernetes-list-type "map" merge items by x-kubernetes-list-map-keys (a key
//   missing from an item takes the key property's schema default); "set" lists are unioned;
//   "atomic" lists are replaced;
// - lists the schema says nothing about use the built-in kind's strategic merge keys
//   (containers by name, conditions by type, ...), metadata.finalizers (a set) and
//   metadata.ownerReferences (by uid) for every kind; other lists are replaced;
// - live items keep their order, new items follow in applied order (as structured-merge-diff).
//
// What differs from real server-side apply, which tracks field managers in managedFields:
// - No field ownership: a field a manager stops applying is NOT removed (real SSA removes
//   fields only that manager owned). Remove fields with an explicit null in the applied
//   configuration (real SSA has no such means) or with another patch type.
// - No conflicts: applying a value another manager set just overwrites it, as if every apply
//   were --force-conflicts. managedFields is neither read nor written.
// - An empty applied list leaves a merging list alone instead of removing owned items.
namespace nodewright::apiserver::patch {

// Returns `live` with `applied` (an object) merged in; `live` may be null to create.
// `schema` is the OpenAPI v3 schema of the whole object (may be null or empty).
// Errors (Invalid): an applied value that is not an object, a list-map item without a key field
// (and no default), duplicate keys or set values in an applied list.
core::Result<api::Json> applyServerSide(const api::Json& live, const api::Json& applied,
                                        const api::Json& schema, std::string_view group,
                                        std::string_view kind);

}  // namespace nodewright::apiserver::patch
