#pragma once

#include <vector>

#include "api/reflect/json.h"

namespace nodewright::apiserver::patch::detail {

// Orders a merged strategic-merge list as apimachinery does (normalizeElementOrder), so that
// kubectl sees the same lists it would from kube-apiserver. Items whose identity is in
// `patchOrder` (the patch list, or a $setElementOrder list) follow that order; the others keep
// their order in `serverOrder` (the live list). The two runs are interleaved by position in
// `serverOrder`; an item new to the server goes before the server-only item it meets, which is
// why a strategic patch adding a container lists it first.
// `ids[i]` is the identity of `items[i]`: its merge key value, or the item itself for primitives.
std::vector<api::Json> normalizeElementOrder(const std::vector<api::Json>& items,
                                             const std::vector<api::Json>& ids,
                                             const std::vector<api::Json>& patchOrder,
                                             const std::vector<api::Json>& serverOrder);

}  // namespace nodewright::apiserver::patch::detail
