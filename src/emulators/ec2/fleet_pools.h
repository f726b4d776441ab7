#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulators/engine/faults.h"

// How an instant EC2 Fleet orders its capacity pools (launch template overrides) for an
// allocation strategy. Pure functions, so the choice is testable without launching.
namespace nodewright::emulators::ec2 {

// One pool as the strategies see it.
struct PoolCandidate {
  std::string instanceType;
  std::string zone;
  double price = 0;                  // USD per hour; +infinity when unknown
  std::optional<double> priority;    // lower is preferred; unset sorts last
  std::optional<int64_t> remaining;  // launches the pool has left; nullopt: unlimited
};

// The pools with the fraction of the cheapest price price-capacity-optimized still counts as
// "among the cheapest": pools up to 20% dearer compete on capacity.
inline constexpr double kPriceCapacityBand = 1.2;

// Pool indices in the order the fleet tries them:
//  - lowest-price, diversified: by price;
//  - prioritized, capacity-optimized-prioritized: by priority, then price;
//  - capacity-optimized: by remaining capacity (unlimited first), then price;
//  - price-capacity-optimized: the pools within kPriceCapacityBand of the cheapest by capacity,
//    then price; then the rest by price.
// Ties keep request order. Unknown strategies order by price.
std::vector<size_t> orderPools(const std::vector<PoolCandidate>& pools, std::string_view strategy);

}  // namespace nodewright::emulators::ec2
