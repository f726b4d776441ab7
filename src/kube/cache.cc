#include "kube/cache.h"

#include <mutex>

#include "api/capi/machine.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"

namespace nodewright::kube {
namespace {

std::vector<std::string> nonEmpty(const std::string& value) {
  return value.empty() ? std::vector<std::string>{} : std::vector<std::string>{value};
}

}  // namespace

std::string keyOf(const api::Object& object) {
  const auto& meta = object.metadata();
  return meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
}

std::vector<std::string> namespaceIndex(const api::Object& object) {
  return nonEmpty(object.metadata().namespace_);
}

std::vector<std::string> ownerIndex(const api::Object& object) {
  std::vector<std::string> out;
  for (const auto& ref : object.metadata().ownerReferences) {
    if (!ref.uid.empty()) {
      out.push_back(ref.uid);
    }
  }
  return out;
}

std::vector<std::string> nodeNameIndex(const api::Object& object) {
  if (auto* pod = object.as<api::corev1::Pod>()) {
    return nonEmpty(pod->spec.nodeName);
  }
  if (auto* claim = object.as<api::karpenter::NodeClaim>()) {
    return nonEmpty(claim->status.nodeName);
  }
  return {};
}

std::vector<std::string> providerIdIndex(const api::Object& object) {
  if (auto* node = object.as<api::corev1::Node>()) {
    return nonEmpty(node->spec.providerID);
  }
  if (auto* claim = object.as<api::karpenter::NodeClaim>()) {
    return nonEmpty(claim->status.providerID);
  }
  if (auto* machine = object.as<api::capi::Machine>()) {
    return nonEmpty(machine->spec.providerID.value_or(""));
  }
  if (auto* vm = object.as<api::capz::AzureMachine>()) {
    return nonEmpty(vm->spec.providerID.value_or(""));
  }
  if (auto* poolMachine = object.as<api::capz::AzureMachinePoolMachine>()) {
    return nonEmpty(poolMachine->spec.providerID);
  }
  return {};
}

Cache::Cache() {
  indexers_[kByNamespace] = namespaceIndex;
  indexers_[kByOwner] = ownerIndex;
  indexers_[kByNodeName] = nodeNameIndex;
  indexers_[kByProviderId] = providerIdIndex;
}

void Cache::addIndex(const std::string& name, IndexFunc fn) {
  std::unique_lock lock(mu_);
  if (indexers_.count(name)) {
    for (const auto& [key, object] : objects_) {
      unindexLocked(key, object);
    }
  }
  indexers_[name] = std::move(fn);
  indexes_.erase(name);
  for (const auto& [key, object] : objects_) {
    indexLocked(key, object);
  }
}

void Cache::indexLocked(const std::string& key, const api::Object& object) {
  for (const auto& [name, fn] : indexers_) {
    auto& index = indexes_[name];
    for (auto& value : fn(object)) {
      index[value].insert(key);
    }
  }
}

void Cache::unindexLocked(const std::string& key, const api::Object& object) {
  for (const auto& [name, fn] : indexers_) {
    auto& index = indexes_[name];
    for (auto& value : fn(object)) {
      auto it = index.find(value);
      if (it == index.end()) {
        continue;
      }
      it->second.erase(key);
      if (it->second.empty()) {
        index.erase(it);
      }
    }
  }
}

std::optional<api::Object> Cache::get(const std::string& key) const {
  std::shared_lock lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<api::Object> Cache::list() const {
  std::shared_lock lock(mu_);
  std::vector<api::Object> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) {
    out.push_back(object);
  }
  return out;
}

std::vector<api::Object> Cache::byIndex(const std::string& index, const std::string& value) const {
  std::shared_lock lock(mu_);
  std::vector<api::Object> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) {
    return out;
  }
  auto it = idx->second.find(value);
  if (it == idx->second.end()) {
    return out;
  }
  for (const auto& key : it->second) {
    out.push_back(objects_.at(key));
  }
  return out;
}

std::vector<std::string> Cache::keys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) {
    out.push_back(key);
  }
  return out;
}

size_t Cache::size() const {
  std::shared_lock lock(mu_);
  return objects_.size();
}

std::optional<api::Object> Cache::upsert(const api::Object& object) {
  std::string key = keyOf(object);
  std::unique_lock lock(mu_);
  std::optional<api::Object> previous;
  if (auto it = objects_.find(key); it != objects_.end()) {
    previous = it->second;
    unindexLocked(key, it->second);
    it->second = object;
  } else {
    objects_.emplace(key, object);
  }
  indexLocked(key, object);
  return previous;
}

std::optional<api::Object> Cache::erase(const std::string& key) {
  std::unique_lock lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) {
    return std::nullopt;
  }
  api::Object previous = it->second;
  unindexLocked(key, previous);
  objects_.erase(it);
  return previous;
}

Cache::Replaced Cache::replace(std::vector<api::Object> objects) {
  Replaced out;
  std::unordered_map<std::string, api::Object> next;
  next.reserve(objects.size());
  for (auto& object : objects) {
    std::string key = keyOf(object);
    next.insert_or_assign(std::move(key), std::move(object));
  }
  std::unique_lock lock(mu_);
  for (auto& [key, object] : objects_) {
    if (!next.count(key)) {
      out.removed.push_back(object);
    }
  }
  for (auto& [key, object] : next) {
    auto it = objects_.find(key);
    if (it == objects_.end()) {
      out.upserted.emplace_back(std::nullopt, object);
    } else if (it->second.metadata().resourceVersion != object.metadata().resourceVersion) {
      out.upserted.emplace_back(it->second, object);
    }
  }
  objects_ = std::move(next);
  indexes_.clear();
  for (const auto& [key, object] : objects_) {
    indexLocked(key, object);
  }
  return out;
}

}  // namespace nodewright::kube
