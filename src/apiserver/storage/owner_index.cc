#include "apiserver/storage/owner_index.h"

#include <algorithm>

namespace nodewright::apiserver::storage {

std::vector<std::string> ownerUids(const api::Json& object) {
  std::vector<std::string> uids;
  // Checked lookups throughout: stored objects are not validated here and must not throw.
  if (!object.is_object()) {
    return uids;
  }
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return uids;
  }
  auto refs = metadata->find("ownerReferences");
  if (refs == metadata->end() || !refs->is_array()) {
    return uids;
  }
  for (const api::Json& ref : *refs) {
    if (!ref.is_object()) {
      continue;
    }
    auto uid = ref.find("uid");
    if (uid != ref.end() && uid->is_string() && !uid->get_ref<const std::string&>().empty()) {
      uids.push_back(uid->get<std::string>());
    }
  }
  std::sort(uids.begin(), uids.end());
  uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
  return uids;
}

void OwnerIndex::update(const std::string& key, const api::Json* previous,
                        const api::Json* current) {
  std::vector<std::string> before =
      previous != nullptr ? ownerUids(*previous) : std::vector<std::string>{};
  std::vector<std::string> after =
      current != nullptr ? ownerUids(*current) : std::vector<std::string>{};
  if (before == after) {
    return;  // the common update: owners unchanged
  }
  for (const std::string& uid : before) {
    auto it = dependents_.find(uid);
    if (it != dependents_.end()) {
      it->second.erase(key);
      if (it->second.empty()) {
        dependents_.erase(it);
      }
    }
  }
  for (const std::string& uid : after) {
    dependents_[uid].insert(key);
  }
}

std::vector<std::string> OwnerIndex::dependentsOf(std::string_view ownerUid) const {
  auto it = dependents_.find(std::string(ownerUid));
  if (it == dependents_.end()) {
    return {};
  }
  return {it->second.begin(), it->second.end()};
}

}  // namespace nodewright::apiserver::storage
