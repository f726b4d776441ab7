#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "apiserver/rest/objects.h"
#include "apiserver/storage/store.h"

// The controllers kube-controller-manager and the kubelet would run for the API's own
// semantics: owner-reference garbage collection (background, foreground, orphan), namespace
// termination, removal of pods whose grace period ended, and PodDisruptionBudget status.
namespace nodewright::apiserver::gc {

class Collector {
 public:
  explicit Collector(rest::Objects& objects);
  ~Collector();

  void start();
  void stop();

 private:
  void run();
  void sweepAll();
  // One step of every deletion in progress (foreground, namespaces), pod expiry, and the
  // budgets of the namespaces whose pods changed.
  void stepPending();
  void observe(const storage::Stored& stored, bool deleted);
  void releaseDependents(const api::Json& owner);
  void orphanDependents(const api::Json& owner, const std::string& key);
  void dropOwnerReference(const std::string& key, const std::string& ownerUid);
  void foregroundStep(const std::string& key);
  void namespaceStep(const std::string& name);
  void expirePods();
  // Recomputes the status of the namespace's PodDisruptionBudgets.
  void refreshBudgets(const std::string& ns);
  void removeFinalizer(const std::string& key, const std::string& finalizer);
  // Updates the object at `key` to what `edit` makes of its metadata, given the object as
  // stored (whatever its resourceVersion by then); nothing when it is gone.
  void editMetadata(const std::string& key,
                    const std::function<void(const api::Json& current, api::Json& metadata)>& edit);
  // The owner named by `ref` still exists (same uid), for a dependent in namespace `ns`.
  bool ownerExists(const api::Json& ref, const std::string& ns) const;
  ResourcePtr resourceForKey(const std::string& key) const;

  rest::Objects& objects_;
  storage::Store& store_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::set<std::string> foreground_;   // owner keys waiting for their dependents
  std::set<std::string> terminating_;  // namespaces being emptied
  std::map<std::string, core::TimePoint> podDeadlines_;
  std::set<std::string> budgetNamespaces_;  // pods or budgets changed there
};

}  // namespace nodewright::apiserver::gc
