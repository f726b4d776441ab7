#pragma once

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/reflect/json.h"

// Which stored objects name a given owner uid in metadata.ownerReferences, so garbage collection
// finds dependents without scanning every object. Not thread-safe: the store guards it.
namespace nodewright::apiserver::storage {

// The uids an object's metadata.ownerReferences name; malformed entries are skipped.
std::vector<std::string> ownerUids(const api::Json& object);

class OwnerIndex {
 public:
  // Records that `key` changed from `previous` to `current` (nullptr: absent).
  void update(const std::string& key, const api::Json* previous, const api::Json* current);
  // Keys in key order.
  std::vector<std::string> dependentsOf(std::string_view ownerUid) const;
  size_t ownerCount() const { return dependents_.size(); }

 private:
  std::unordered_map<std::string, std::set<std::string>> dependents_;
};

}  // namespace nodewright::apiserver::storage
