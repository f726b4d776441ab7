#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/resources.h"
#include "core/error.h"

namespace nodewright::apiserver::discovery {

// Serialized discovery and OpenAPI documents of one snapshot of the served resources.
//
// They change only when a CRD publishes a new snapshot, yet clients ask for them constantly:
// kubectl fetches the OpenAPI v3 index on most commands, and the index hashes every group
// version's document, so building them per request made discovery the costliest thing the
// server did. Entries live until the snapshot changes; failures (an unknown path) are never
// stored, so the entries are bounded by the group versions served.
class DocumentCache {
 public:
  using Snapshot = std::shared_ptr<const std::vector<ResourcePtr>>;
  using Builder = std::function<core::Result<api::Json>(const std::vector<ResourcePtr>&)>;

  // The document `key` names for `snapshot`, serialized; built with `build` when not cached.
  // Thread-safe; two requests that miss together both build, and the first stored wins.
  core::Result<std::shared_ptr<const std::string>> get(const Snapshot& snapshot,
                                                       const std::string& key,
                                                       const Builder& build);

 private:
  std::mutex mu_;
  Snapshot snapshot_;  // GUARDED_BY(mu_); held so a new snapshot can never reuse its address
  std::map<std::string, std::shared_ptr<const std::string>> documents_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::apiserver::discovery
