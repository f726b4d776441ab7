#pragma once

#include "api/reflect/json.h"
#include "core/error.h"

// RFC 6902 JSON Patch (application/json-patch+json), as kube-apiserver applies it.
namespace nodewright::apiserver::patch {

// Applies `patch` (an array of operations) to a copy of `original`; all or nothing.
// Pointers follow RFC 6901 ("~1" is "/", "~0" is "~"; "-" appends to an array on add/move/copy).
// Like kube-apiserver (evanphx/json-patch), negative array indices count from the end.
// Errors (Invalid, with evanphx/json-patch's wording): a patch that is not an array of objects,
// an unknown op, missing path/from/value, a path whose parent is missing, a missing member or
// out-of-range index, a move into its own child, a failed test.
core::Result<api::Json> applyJsonPatch(const api::Json& original, const api::Json& patch);

}  // namespace nodewright::apiserver::patch
