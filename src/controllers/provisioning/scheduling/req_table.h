#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "controllers/provisioning/scheduling/requirements.h"

// Interned requirement sets. A pass sees few distinct sets (a pool's, narrowed by a few pod
// shapes and zones) but combines them millions of times, so sets get ids and combinations are
// memoised by id pair. Not thread-safe; one per pass.
namespace nodewright::controllers::provisioning::scheduling {

class ReqTable {
 public:
  int intern(const Requirements& reqs);
  const Requirements& get(int id) const { return sets_[id]; }
  // Whether any key of the set admits nothing.
  bool conflicted(int id) const { return conflicted_[id]; }

  // The intersection of two sets.
  int intersect(int a, int b);
  // existing.compatible(incoming) (see Requirements::compatible), memoised.
  bool compatible(int existing, int incoming);

 private:
  static uint64_t pair(int a, int b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

  std::vector<Requirements> sets_;
  std::vector<bool> conflicted_;
  std::unordered_map<std::string, int> ids_;
  std::unordered_map<uint64_t, int> intersections_;
  std::unordered_map<uint64_t, bool> compatibility_;
};

}  // namespace nodewright::controllers::provisioning::scheduling
