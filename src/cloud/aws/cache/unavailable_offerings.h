#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "core/clock.h"

// Pools (instance type, zone, capacity type) that answered InsufficientInstanceCapacity lately.
// They are left out of offerings and fleet overrides until the entry expires (3 minutes, as in
// Karpenter), so one empty pool does not fail every launch meanwhile. Thread-safe.
namespace nodewright::cloud::aws {

class UnavailableOfferings {
 public:
  static constexpr std::chrono::minutes kDefaultTtl{3};

  explicit UnavailableOfferings(const core::Clock& clock, std::chrono::seconds ttl = kDefaultTtl);

  void markUnavailable(std::string_view instanceType, std::string_view zone,
                       std::string_view capacityType, std::string_view reason);
  bool isUnavailable(std::string_view instanceType, std::string_view zone,
                     std::string_view capacityType) const;
  // Bumped by every markUnavailable, so caches built on offerings know to rebuild.
  uint64_t generation() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  const core::Clock& clock_;
  const std::chrono::seconds ttl_;
  mutable std::mutex mu_;
  std::map<Key, std::chrono::steady_clock::time_point, std::less<>> expires_;
  uint64_t generation_ = 0;
};

}  // namespace nodewright::cloud::aws
