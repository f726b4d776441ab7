// The pool order of each fleet allocation strategy, and what the fault configuration leaves a
// pool.
#include "emulators/ec2/fleet_pools.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace nodewright::emulators::ec2 {
namespace {

PoolCandidate pool(double price, std::optional<int64_t> remaining = std::nullopt,
                   std::optional<double> priority = std::nullopt) {
  PoolCandidate p;
  p.price = price;
  p.remaining = remaining;
  p.priority = priority;
  return p;
}

TEST(FleetPoolsTest, LowestPriceOrdersByPriceKeepingRequestOrderOnTies) {
  const double unknown = std::numeric_limits<double>::infinity();
  std::vector<PoolCandidate> pools{pool(0.2), pool(unknown), pool(0.1), pool(0.2)};
  EXPECT_EQ(orderPools(pools, "lowest-price"), (std::vector<size_t>{2, 0, 3, 1}));
  EXPECT_EQ(orderPools(pools, "diversified"), (std::vector<size_t>{2, 0, 3, 1}));
}

TEST(FleetPoolsTest, PrioritizedOrdersByPriorityThenPrice) {
  std::vector<PoolCandidate> pools{pool(0.1, {}, 2.0), pool(0.3), pool(0.5, {}, 1.0),
                                   pool(0.2, {}, 1.0)};
  EXPECT_EQ(orderPools(pools, "prioritized"), (std::vector<size_t>{3, 2, 0, 1}));
  EXPECT_EQ(orderPools(pools, "capacity-optimized-prioritized"), (std::vector<size_t>{3, 2, 0, 1}));
}

TEST(FleetPoolsTest, CapacityOptimizedPrefersTheDeepestPool) {
  std::vector<PoolCandidate> pools{pool(0.1, 5), pool(0.3, 0), pool(0.5), pool(0.2, 50)};
  EXPECT_EQ(orderPools(pools, "capacity-optimized"), (std::vector<size_t>{2, 3, 0, 1}));
}

TEST(FleetPoolsTest, PriceCapacityOptimizedWeighsCapacityOnlyAmongTheCheapest) {
  // 0.100 and 0.115 are within the band of the cheapest; 0.200 is not, however deep.
  std::vector<PoolCandidate> pools{pool(0.100, 1), pool(0.200), pool(0.115, 40), pool(0.110, 0)};
  EXPECT_EQ(orderPools(pools, "price-capacity-optimized"), (std::vector<size_t>{2, 0, 3, 1}));
  EXPECT_TRUE(orderPools({}, "price-capacity-optimized").empty());
}

TEST(FleetPoolsTest, RemainingCapacityFollowsTheFirstMatchingPool) {
  FaultConfig faults;
  faults.capacity = {{"m5.large", "us-east-1a", "spot", 3},
                     {"m5.large", "*", "", std::nullopt},
                     {"", "us-east-1c", "on-demand", 7}};
  EXPECT_EQ(remainingCapacity(faults, {"m5.large", "us-east-1a", "spot"}), 3);
  EXPECT_EQ(remainingCapacity(faults, {"m5.large", "us-east-1a", "on-demand"}), 0);
  EXPECT_EQ(remainingCapacity(faults, {"c5.large", "us-east-1c", "on-demand"}), 7);
  EXPECT_EQ(remainingCapacity(faults, {"c5.large", "us-east-1b", "on-demand"}), std::nullopt);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
