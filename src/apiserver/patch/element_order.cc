#include "apiserver/patch/element_order.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace nodewright::apiserver::patch::detail {
namespace {

using api::Json;

constexpr size_t kAbsent = std::numeric_limits<size_t>::max();

size_t positionIn(const std::vector<Json>& order, const Json& id) {
  auto it = std::find(order.begin(), order.end(), id);
  return it == order.end() ? kAbsent : static_cast<size_t>(it - order.begin());
}

}  // namespace

std::vector<Json> normalizeElementOrder(const std::vector<Json>& items,
                                        const std::vector<Json>& ids,
                                        const std::vector<Json>& patchOrder,
                                        const std::vector<Json>& serverOrder) {
  std::vector<size_t> patchItems;
  std::vector<size_t> serverOnly;
  for (size_t i = 0; i < items.size(); ++i) {
    (positionIn(patchOrder, ids[i]) != kAbsent ? patchItems : serverOnly).push_back(i);
  }
  auto byOrder = [&ids](const std::vector<Json>& order) {
    return [&ids, &order](size_t a, size_t b) {
      return positionIn(order, ids[a]) < positionIn(order, ids[b]);
    };
  };
  std::stable_sort(patchItems.begin(), patchItems.end(), byOrder(patchOrder));
  std::stable_sort(serverOnly.begin(), serverOnly.end(), byOrder(serverOrder));

  std::vector<Json> result;
  result.reserve(items.size());
  size_t left = 0;
  size_t right = 0;
  while (left < serverOnly.size() || right < patchItems.size()) {
    bool takeLeft = right == patchItems.size();
    if (!takeLeft && left < serverOnly.size()) {
      size_t serverPos = positionIn(serverOrder, ids[serverOnly[left]]);
      size_t patchPos = positionIn(serverOrder, ids[patchItems[right]]);
      takeLeft = serverPos != kAbsent && patchPos != kAbsent && serverPos < patchPos;
    }
    result.push_back(items[takeLeft ? serverOnly[left++] : patchItems[right++]]);
  }
  return result;
}

}  // namespace nodewright::apiserver::patch::detail
