#include "apiserver/gc/collector.h"

#include <utility>

#include "apiserver/rest/disruption_budget.h"
#include "apiserver/rest/object_meta.h"
#include "core/log.h"

namespace nodewright::apiserver::gc {
namespace {

using api::Json;
namespace meta = rest::meta;

bool hasFinalizer(const Json& object, const std::string& name) {
  for (const auto& f : meta::finalizers(object)) {
    if (f == name) {
      return true;
    }
  }
  return false;
}

Json ownerRefs(const Json& object) {
  return object.value("metadata", Json::object()).value("ownerReferences", Json::array());
}

const char* const kPodPrefix = "pods/";
const char* const kBudgetPrefix = "poddisruptionbudgets.policy/";

// "pods/NS/NAME" -> "NS".
std::string keyNamespace(const std::string& key) {
  size_t first = key.find('/');
  size_t second = key.find('/', first + 1);
  return key.substr(first + 1, second - first - 1);
}

std::string namespaceName(const std::string& key) {
  // "namespaces//NAME"
  return key.substr(key.rfind('/') + 1);
}

}  // namespace

Collector::Collector(rest::Objects& objects) : objects_(objects), store_(objects.store()) {}

Collector::~Collector() {
  stop();
}

void Collector::start() {
  thread_ = std::thread([this] { run(); });
}

void Collector::stop() {
  stopping_ = true;
  if (thread_.joinable()) {
    thread_.join();
  }
}

ResourcePtr Collector::resourceForKey(const std::string& key) const {
  std::string qualified = key.substr(0, key.find('/'));
  for (const auto& r : objects_.resources().all()) {
    if (r->qualifiedPlural() == qualified) {
      return r;
    }
  }
  return nullptr;
}

bool Collector::ownerExists(const Json& ref, const std::string& ns) const {
  auto resource = objects_.resources().findKind(ref.value("apiVersion", ""), ref.value("kind", ""));
  if (!resource) {
    return false;
  }
  auto owner = store_.get(
      rest::storageKey(*resource, resource->namespaced ? ns : "", ref.value("name", "")));
  return owner && meta::uid(*owner->object) == ref.value("uid", "");
}

void Collector::run() {
  while (!stopping_) {
    int64_t from = store_.revision();
    sweepAll();
    auto subscription = store_.watch("", from);
    if (!subscription) {
      continue;
    }
    while (!stopping_) {
      auto events = (*subscription)->next(std::chrono::milliseconds(200));
      if (!events) {
        if (events.error().is(core::Code::Conflict)) {
          break;  // fell behind: sweep again
        }
        return;  // store closed
      }
      for (const auto& event : *events) {
        observe(*event.stored, event.type == storage::EventType::Deleted);
      }
      stepPending();
    }
  }
}

void Collector::sweepAll() {
  auto all = store_.list("", "", 0);
  for (const auto& item : all.items) {
    const Json& object = *item->object;
    observe(*item, false);
    Json refs = ownerRefs(object);
    if (refs.empty()) {
      continue;
    }
    bool anyAlive = false;
    for (const auto& ref : refs) {
      anyAlive = anyAlive || ownerExists(ref, meta::namespaceOf(object));
    }
    if (!anyAlive) {
      auto resource = resourceForKey(item->key);
      if (resource) {
        (void)objects_.remove(*resource, meta::namespaceOf(object), meta::name(object), {});
      }
    }
  }
  stepPending();
}

void Collector::stepPending() {
  for (auto key : std::set<std::string>(foreground_)) {
    foregroundStep(key);
  }
  for (auto name : std::set<std::string>(terminating_)) {
    namespaceStep(name);
  }
  expirePods();
  for (const auto& ns : std::exchange(budgetNamespaces_, {})) {
    refreshBudgets(ns);
  }
}

void Collector::observe(const storage::Stored& stored, bool deleted) {
  const Json& object = *stored.object;
  if (stored.key.rfind(kPodPrefix, 0) == 0 || stored.key.rfind(kBudgetPrefix, 0) == 0) {
    budgetNamespaces_.insert(keyNamespace(stored.key));
  }
  if (deleted) {
    podDeadlines_.erase(stored.key);
    foreground_.erase(stored.key);
    releaseDependents(object);
    return;
  }
  if (!meta::deletionPending(object)) {
    return;
  }
  if (stored.key.rfind("namespaces/", 0) == 0) {
    terminating_.insert(namespaceName(stored.key));
    return;
  }
  if (hasFinalizer(object, "orphan")) {
    orphanDependents(object, stored.key);
  }
  if (hasFinalizer(object, "foregroundDeletion")) {
    foreground_.insert(stored.key);
  }
  if (stored.key.rfind("pods/", 0) == 0) {
    auto deadline = core::Time::parse(object["metadata"].value("deletionTimestamp", std::string()));
    if (deadline) {
      podDeadlines_[stored.key] = deadline->point();
    }
  }
}

void Collector::releaseDependents(const Json& owner) {
  const std::string uid = meta::uid(owner);
  if (uid.empty()) {
    return;
  }
  for (const auto& key : store_.dependentsOf(uid)) {
    auto dependent = store_.get(key);
    auto resource = resourceForKey(key);
    if (!dependent || !resource) {
      continue;
    }
    const Json& object = *dependent->object;
    const std::string ns = meta::namespaceOf(object);
    bool othersAlive = false;
    for (const auto& ref : ownerRefs(object)) {
      if (ref.value("uid", "") != uid && ownerExists(ref, ns)) {
        othersAlive = true;
      }
    }
    if (othersAlive) {
      dropOwnerReference(key, uid);
      continue;
    }
    rest::DeleteOptions options;
    if (hasFinalizer(owner, "foregroundDeletion")) {
      options.propagation = rest::Propagation::Foreground;
    }
    auto removed = objects_.remove(*resource, ns, meta::name(object), options);
    if (!removed && removed.error().code != 404) {
      core::logWarn("garbage collector: deleting a dependent failed",
                    {{"dependent", key}, {"error", removed.error().message}});
    }
  }
}

void Collector::orphanDependents(const Json& owner, const std::string& key) {
  const std::string uid = meta::uid(owner);
  for (const auto& dependentKey : store_.dependentsOf(uid)) {
    dropOwnerReference(dependentKey, uid);
  }
  removeFinalizer(key, "orphan");
}

void Collector::dropOwnerReference(const std::string& key, const std::string& ownerUid) {
  editMetadata(key, [&ownerUid](const Json& current, Json& metadata) {
    Json kept = Json::array();
    for (const auto& ref : ownerRefs(current)) {
      if (ref.value("uid", "") != ownerUid) {
        kept.push_back(ref);
      }
    }
    metadata["ownerReferences"] = kept;
  });
}

void Collector::foregroundStep(const std::string& key) {
  auto owner = store_.get(key);
  if (!owner) {
    foreground_.erase(key);
    return;
  }
  const std::string uid = meta::uid(*owner->object);
  auto dependents = store_.dependentsOf(uid);
  if (dependents.empty()) {
    foreground_.erase(key);
    removeFinalizer(key, "foregroundDeletion");
    return;
  }
  for (const auto& dependentKey : dependents) {
    auto dependent = store_.get(dependentKey);
    auto resource = resourceForKey(dependentKey);
    if (!dependent || !resource || meta::deletionPending(*dependent->object)) {
      continue;
    }
    rest::DeleteOptions options;
    options.propagation = rest::Propagation::Foreground;
    (void)objects_.remove(*resource, meta::namespaceOf(*dependent->object),
                          meta::name(*dependent->object), options);
  }
}

void Collector::namespaceStep(const std::string& name) {
  bool empty = true;
  for (const auto& resource : objects_.resources().all()) {
    if (!resource->namespaced) {
      continue;
    }
    for (const auto& item : store_.list(rest::storagePrefix(*resource, name), "", 0).items) {
      empty = false;
      if (meta::deletionPending(*item->object)) {
        continue;
      }
      rest::DeleteOptions options;
      options.gracePeriodSeconds = 0;
      (void)objects_.remove(*resource, name, meta::name(*item->object), options);
    }
  }
  if (!empty) {
    return;
  }
  std::string key = "namespaces//" + name;
  auto ns = store_.get(key);
  terminating_.erase(name);
  if (!ns) {
    return;
  }
  storage::WriteOp op{storage::WriteOp::Kind::Delete, key, ns->revision, *ns->object};
  (void)store_.write(std::move(op));
}

void Collector::expirePods() {
  auto now = objects_.clock().now();
  auto pods = objects_.resources().find("", "v1", "pods");
  for (auto it = podDeadlines_.begin(); it != podDeadlines_.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    auto pod = store_.get(it->first);
    if (pod && meta::finalizers(*pod->object).empty()) {
      rest::DeleteOptions options;
      options.gracePeriodSeconds = 0;
      (void)objects_.remove(*pods, meta::namespaceOf(*pod->object), meta::name(*pod->object),
                            options);
    }
    it = podDeadlines_.erase(it);
  }
}

void Collector::refreshBudgets(const std::string& ns) {
  auto budgets = objects_.resources().find("policy", "v1", "poddisruptionbudgets");
  auto podResource = objects_.resources().find("", "v1", "pods");
  auto pdbs = store_.list(rest::storagePrefix(*budgets, ns), "", 0).items;
  if (pdbs.empty()) {
    return;
  }
  auto pods = store_.list(rest::storagePrefix(*podResource, ns), "", 0).items;
  for (const auto& item : pdbs) {
    auto updated =
        objects_.update(*budgets, ns, meta::name(*item->object), "status",
                        [&](const Json& current) -> rest::ApiResult<Json> {
                          Json next = current;
                          next["status"] = rest::budgetStatus(
                              current, rest::budgetHealth(current, pods), objects_.now());
                          next["metadata"].erase("resourceVersion");
                          return next;
                        },
                        {});
    if (!updated && updated.error().code != 404) {
      core::logWarn(
          "disruption budgets: writing status failed",
          {{"budget", ns + "/" + meta::name(*item->object)}, {"error", updated.error().message}});
    }
  }
}

void Collector::removeFinalizer(const std::string& key, const std::string& finalizer) {
  editMetadata(key, [&finalizer](const Json& current, Json& metadata) {
    Json kept = Json::array();
    for (const auto& f : meta::finalizers(current)) {
      if (f != finalizer) {
        kept.push_back(f);
      }
    }
    metadata["finalizers"] = kept;
  });
}

void Collector::editMetadata(const std::string& key,
                             const std::function<void(const Json& current, Json& metadata)>& edit) {
  auto resource = resourceForKey(key);
  auto stored = store_.get(key);
  if (!resource || !stored) {
    return;
  }
  (void)objects_.update(*resource, meta::namespaceOf(*stored->object), meta::name(*stored->object),
                        rest::kWholeObject,
                        [&edit](const Json& current) -> rest::ApiResult<Json> {
                          Json next = current;
                          edit(current, next["metadata"]);
                          next["metadata"].erase("resourceVersion");
                          return next;
                        },
                        {});
}

}  // namespace nodewright::apiserver::gc
