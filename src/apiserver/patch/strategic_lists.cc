#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "apiserver/patch/element_order.h"
#include "apiserver/patch/strategic_internal.h"

namespace nodewright::apiserver::patch::detail {
namespace {

using api::Json;

constexpr std::string_view kSetElementOrder = "$setElementOrder/";

core::Error invalid(std::string message) {
  return core::Error::invalid(std::move(message));
}

// An item's identity in a merging list: its merge key value, or itself for primitives.
core::Result<Json> identityOf(const Json& item, const FieldMeta& field) {
  if (field.mergeKey.empty()) {
    return item;
  }
  if (!item.is_object()) {
    return core::fail(invalid(fmt::format("expected a map, but received {}", api::dumpJson(item))));
  }
  auto it = item.find(field.mergeKey);
  if (it == item.end()) {
    return core::fail(invalid(fmt::format("map: {} does not contain declared merge key: {}",
                                          api::dumpJson(item), field.mergeKey)));
  }
  return *it;
}

template <class Items>
core::Result<std::vector<Json>> identitiesOf(const Items& items, const FieldMeta& field) {
  std::vector<Json> ids;
  for (const Json& item : items) {
    auto id = identityOf(item, field);
    if (!id) {
      return core::fail(id.error());
    }
    ids.push_back(std::move(*id));
  }
  return ids;
}

template <class Items>
core::Result<Json> ordered(const Items& items, const std::vector<Json>& patchOrder,
                           const std::vector<Json>& serverOrder, const FieldMeta& field) {
  auto ids = identitiesOf(items, field);
  if (!ids) {
    return core::fail(ids.error());
  }
  std::vector<Json> list(items.begin(), items.end());
  return Json(normalizeElementOrder(list, *ids, patchOrder, serverOrder));
}

core::Result<Json> mergePrimitiveList(const Json& original, const Json& patch,
                                      const FieldMeta& field) {
  std::vector<Json> items;
  for (const Json* list : {&original, &patch}) {
    for (const Json& item : *list) {
      if (item.is_object()) {
        return core::fail(invalid("cannot merge lists without merge key for type map"));
      }
      if (std::find(items.begin(), items.end(), item) == items.end()) {
        items.push_back(item);
      }
    }
  }
  return ordered(items, std::vector<Json>(patch.begin(), patch.end()),
                 std::vector<Json>(original.begin(), original.end()), field);
}

// Applies the items carrying "$patch" (delete one item, replace the list); returns the others.
core::Result<std::vector<Json>> applyItemDirectives(std::vector<Json>& items, const Json& patch,
                                                    const FieldMeta& field) {
  std::vector<Json> plain;
  bool replaceAll = false;
  for (const Json& element : patch) {
    auto directive = element.is_object() ? element.find(kPatchDirective) : element.end();
    if (!element.is_object() || directive == element.end()) {
      plain.push_back(element);
    } else if (*directive == "delete") {
      auto key = identityOf(element, field);
      if (!key) {
        return core::fail(key.error());
      }
      std::erase_if(items, [&](const Json& item) {
        auto value = item.is_object() ? item.find(field.mergeKey) : item.end();
        return item.is_object() && value != item.end() && *value == *key;
      });
    } else if (*directive == "replace") {
      replaceAll = true;
    } else if (*directive == "merge") {
      Json item = element;
      item.erase(std::string(kPatchDirective));
      plain.push_back(std::move(item));
    } else {
      return core::fail(unknownPatchType(*directive, element));
    }
  }
  if (replaceAll) {
    items.clear();
  }
  return plain;
}

core::Result<Json> mergeMapList(const Json& original, const Json& patch, const FieldMeta& field) {
  std::vector<Json> items(original.begin(), original.end());
  auto patchItems = applyItemDirectives(items, patch, field);
  if (!patchItems) {
    return core::fail(patchItems.error());
  }
  auto serverOrder = identitiesOf(items, field);
  if (!serverOrder) {
    return core::fail(serverOrder.error());
  }
  auto patchOrder = identitiesOf(*patchItems, field);
  if (!patchOrder) {
    return core::fail(patchOrder.error());
  }
  for (size_t i = 0; i < patchItems->size(); ++i) {
    auto match = std::find(serverOrder->begin(), serverOrder->end(), (*patchOrder)[i]);
    bool found = match != serverOrder->end();
    size_t index = found ? static_cast<size_t>(match - serverOrder->begin()) : items.size();
    auto merged = mergeMap(found ? items[index] : Json::object(), (*patchItems)[i], field.type);
    if (!merged) {
      return core::fail(merged.error());
    }
    if (found) {
      items[index] = std::move(*merged);
    } else {
      items.push_back(std::move(*merged));
    }
  }
  return ordered(items, *patchOrder, *serverOrder, field);
}

// apimachinery's check that the patch list's items appear in the $setElementOrder list in the
// same relative order (items with a directive are skipped).
core::Status validateOrder(const Json& patchList, const Json& order, const FieldMeta& field) {
  size_t orderIndex = 0;
  for (const Json& item : patchList) {
    if (item.is_object() && item.contains(kPatchDirective)) {
      continue;
    }
    auto id = identityOf(item, field);
    if (!id) {
      return core::fail(id.error());
    }
    bool matched = false;
    while (!matched && orderIndex < order.size()) {
      auto orderId = identityOf(order[orderIndex++], field);
      if (!orderId) {
        return core::fail(orderId.error());
      }
      matched = *orderId == *id;
    }
    if (!matched) {
      return core::fail(invalid(
          fmt::format("The order in patch list:\n{}\n doesn't match $setElementOrder list:\n{}\n",
                      api::dumpJson(patchList), api::dumpJson(order))));
    }
  }
  return core::ok();
}

core::Status orderList(Json& original, const Json& patch, const std::string& name,
                       const Json& order, const FieldMeta& field, std::set<std::string>& done) {
  auto live = original.find(name);
  auto patchList = patch.find(name);
  bool hasLive = live != original.end() && live->is_array();
  bool hasPatch = patchList != patch.end() && patchList->is_array();
  if (!hasLive && !hasPatch) {
    return core::ok();
  }
  Json liveList = hasLive ? *live : Json::array();
  Json merged = liveList;
  if (hasPatch) {
    if (auto valid = validateOrder(*patchList, order, field); !valid) {
      return valid;
    }
    auto result = mergeList(liveList, *patchList, field);
    if (!result) {
      return core::fail(result.error());
    }
    merged = std::move(*result);
    done.insert(name);
  }
  auto orderIds = identitiesOf(order, field);
  if (!orderIds) {
    return core::fail(orderIds.error());
  }
  auto liveIds = identitiesOf(liveList, field);
  if (!liveIds) {
    return core::fail(liveIds.error());
  }
  auto sorted = ordered(merged, *orderIds, *liveIds, field);
  if (!sorted) {
    return core::fail(sorted.error());
  }
  original[name] = std::move(*sorted);
  return core::ok();
}

}  // namespace

core::Result<Json> mergeList(const Json& original, const Json& patch, const FieldMeta& field) {
  for (const Json* list : {&original, &patch}) {
    for (const Json& item : *list) {
      if (item.is_array()) {
        return core::fail(invalid("lists of lists are not supported"));
      }
    }
  }
  return field.mergeKey.empty() ? mergePrimitiveList(original, patch, field)
                                : mergeMapList(original, patch, field);
}

core::Status applyElementOrders(Json& original, const Json& patch, const TypeMeta* type,
                                std::set<std::string>& done) {
  for (const auto& [key, order] : patch.items()) {
    if (!key.starts_with("$setElementOrder")) {
      continue;
    }
    if (!key.starts_with(kSetElementOrder) || !order.is_array()) {
      return core::fail(invalid("invalid patch format of setElementOrder list"));
    }
    done.insert(key);
    std::string name = key.substr(kSetElementOrder.size());
    const FieldMeta* field = type != nullptr ? type->field(name) : nullptr;
    if (field == nullptr || !field->mergeList) {
      continue;  // a replaced list is already in the patch's order
    }
    if (auto sorted = orderList(original, patch, name, order, *field, done); !sorted) {
      return sorted;
    }
  }
  return core::ok();
}

}  // namespace nodewright::apiserver::patch::detail
