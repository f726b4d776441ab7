#include "apiserver/discovery/document_cache.h"

#include <utility>

namespace nodewright::apiserver::discovery {

core::Result<std::shared_ptr<const std::string>> DocumentCache::get(const Snapshot& snapshot,
                                                                    const std::string& key,
                                                                    const Builder& build) {
  {
    std::lock_guard lock(mu_);
    if (snapshot_ != snapshot) {
      snapshot_ = snapshot;
      documents_.clear();
    }
    if (auto it = documents_.find(key); it != documents_.end()) {
      return it->second;
    }
  }
  auto document = build(*snapshot);
  if (!document) {
    return core::fail(document.error());
  }
  auto body = std::make_shared<const std::string>(api::dumpJson(*document));
  std::lock_guard lock(mu_);
  if (snapshot_ != snapshot) {
    return body;  // a newer snapshot was published meanwhile: serve, but do not store
  }
  return documents_.emplace(key, std::move(body)).first->second;
}

}  // namespace nodewright::apiserver::discovery
