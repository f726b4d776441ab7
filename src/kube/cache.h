#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/object.h"

// The informer's local copy of one kind: objects by key plus secondary indexes, safe to read
// from any thread. Cached objects are shared and must be treated as immutable; copy before
// changing one.
namespace nodewright::kube {

// The values an object is filed under in one index (none, one or several).
using IndexFunc = std::function<std::vector<std::string>(const api::Object&)>;

// Built-in index names; every informer cache has them.
inline constexpr const char* kByNamespace = "namespace";
inline constexpr const char* kByOwner = "owner";  // the owners' uids
inline constexpr const char* kByNodeName =
    "nodeName";  // Pod spec.nodeName, NodeClaim status.nodeName
inline constexpr const char* kByProviderId =
    "providerID";  // Node, NodeClaim, Machine, AzureMachine...

// "ns/name", or "name" for cluster-scoped objects: the work-queue key.
std::string keyOf(const api::Object& object);

class Cache {
 public:
  Cache();

  // Adds an index; objects already cached are indexed at once.
  void addIndex(const std::string& name, IndexFunc fn);

  std::optional<api::Object> get(const std::string& key) const;
  std::vector<api::Object> list() const;
  std::vector<api::Object> byIndex(const std::string& index, const std::string& value) const;
  std::vector<std::string> keys() const;
  size_t size() const;

  // Writers (the reflector). Each returns the previous state of the object, if any.
  std::optional<api::Object> upsert(const api::Object& object);
  std::optional<api::Object> erase(const std::string& key);
  // The result of a full LIST: every cached object not in `objects` is removed.
  struct Replaced {
    std::vector<std::pair<std::optional<api::Object>, api::Object>> upserted;  // (old, new)
    std::vector<api::Object> removed;
  };
  Replaced replace(std::vector<api::Object> objects);

 private:
  void indexLocked(const std::string& key, const api::Object& object);
  void unindexLocked(const std::string& key, const api::Object& object);

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, api::Object> objects_;
  std::map<std::string, IndexFunc> indexers_;
  // index name → value → keys
  std::map<std::string, std::unordered_map<std::string, std::set<std::string>>> indexes_;
};

// The built-in index functions (exposed for tests and custom caches).
std::vector<std::string> namespaceIndex(const api::Object& object);
std::vector<std::string> ownerIndex(const api::Object& object);
std::vector<std::string> nodeNameIndex(const api::Object& object);
std::vector<std::string> providerIdIndex(const api::Object& object);

}  // namespace nodewright::kube
