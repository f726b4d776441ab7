#pragma once

#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"

// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds we
// serve, following apimachinery's strategicpatch as kube-apiserver applies it.
//
// Like a JSON merge patch, except that lists tagged patchStrategy "merge" upstream merge:
// lists of objects by their patchMergeKey (containers by name, env by name, ports by
// containerPort, conditions by type, ownerReferences by uid, ...), lists of primitives as a
// union (metadata.finalizers, spec.podCIDRs). Other lists (tolerations, node taints, args) are
// replaced. Directives:
//   {"$patch": "replace"} in a map replaces it; "delete" empties it; "merge" is the default.
//   {"<key>": v, "$patch": "delete"} in a merging list deletes the item with that key;
//   {"$patch": "replace"} as an item makes the patch's items the whole list.
//   "$retainKeys": [...] clears the map's other keys (patch keys must be listed).
//   "$deleteFromPrimitiveList/<field>": [...] removes values from a primitive list.
//   "$setElementOrder/<field>": [...] orders the merged list; server-only items keep their
//   relative place.
// No directive survives into the result. Nulls delete; a null for an absent key is ignored.
// Differences from upstream, all lenient: "$patch: merge" is accepted in list items too, and
// directives inside values that are new to the object are applied rather than stored.
namespace nodewright::apiserver::patch {

// Whether the kind takes strategic merge patches. kube-apiserver answers 415 to a strategic
// merge patch of anything else (custom resources).
bool isStrategicKind(std::string_view group, std::string_view kind);

// Applies `patch` (an object) to a copy of `original`. Errors are Invalid, in apimachinery's
// words: "invalid JSON document", unknown "$patch" values, malformed directives, a list item
// without its merge key, lists of lists, a $setElementOrder that contradicts the patch list,
// and an unsupported kind.
core::Result<api::Json> applyStrategicMergePatch(std::string_view group, std::string_view kind,
                                                 const api::Json& original, const api::Json& patch);

}  // namespace nodewright::apiserver::patch
