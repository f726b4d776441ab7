#pragma once

#include <set>
#include <string>

#include "api/reflect/json.h"
#include "apiserver/patch/patch_meta.h"
#include "core/error.h"

// Pieces of the strategic merge shared by strategic_merge.cc (maps and directives) and
// strategic_lists.cc (merging lists and their order). Not part of the module's interface.
namespace nodewright::apiserver::patch::detail {

inline constexpr std::string_view kPatchDirective = "$patch";

core::Error unknownPatchType(const api::Json& directive, const api::Json& map);

// Merges `patch` (an object) into `original` (replaced by {} when not an object).
core::Result<api::Json> mergeMap(api::Json original, api::Json patch, const TypeMeta* type);

// Merges two lists of a field with patchStrategy "merge".
core::Result<api::Json> mergeList(const api::Json& original, const api::Json& patch,
                                  const FieldMeta& field);

// Handles every "$setElementOrder/<field>" of `patch`: merges the named list (when the patch
// carries it) and orders it. Adds each directive, and each list it merged, to `done`.
core::Status applyElementOrders(api::Json& original, const api::Json& patch, const TypeMeta* type,
                                std::set<std::string>& done);

}  // namespace nodewright::apiserver::patch::detail
