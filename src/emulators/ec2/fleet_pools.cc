#include "emulators/ec2/fleet_pools.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace nodewright::emulators::ec2 {
namespace {

// Larger is better; unlimited beats any count.
int64_t capacityRank(const PoolCandidate& p) {
  return p.remaining.value_or(std::numeric_limits<int64_t>::max());
}

double priorityRank(const PoolCandidate& p) {
  return p.priority.value_or(std::numeric_limits<double>::infinity());
}

}  // namespace

std::vector<size_t> orderPools(const std::vector<PoolCandidate>& pools, std::string_view strategy) {
  std::vector<size_t> order(pools.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto byPrice = [&](size_t a, size_t b) { return pools[a].price < pools[b].price; };
  if (strategy == "prioritized" || strategy == "capacity-optimized-prioritized") {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (priorityRank(pools[a]) != priorityRank(pools[b])) {
        return priorityRank(pools[a]) < priorityRank(pools[b]);
      }
      return byPrice(a, b);
    });
    return order;
  }
  auto byCapacity = [&](size_t a, size_t b) {
    if (capacityRank(pools[a]) != capacityRank(pools[b])) {
      return capacityRank(pools[a]) > capacityRank(pools[b]);
    }
    return byPrice(a, b);
  };
  if (strategy == "capacity-optimized") {
    std::stable_sort(order.begin(), order.end(), byCapacity);
    return order;
  }
  std::stable_sort(order.begin(), order.end(), byPrice);
  if (strategy == "price-capacity-optimized" && !order.empty()) {
    const double band = pools[order.front()].price * kPriceCapacityBand;
    auto cheap = std::stable_partition(order.begin(), order.end(),
                                       [&](size_t i) { return pools[i].price <= band; });
    std::stable_sort(order.begin(), cheap, byCapacity);
  }
  return order;
}

}  // namespace nodewright::emulators::ec2
