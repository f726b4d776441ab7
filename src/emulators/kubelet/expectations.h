#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "core/clock.h"

// kube-controller-manager's ControllerExpectations, by pod name: what a controller created or
// deleted that its informer cache does not show yet. Without them a reconcile that runs before
// the cache catches up would create (or delete) the same pods again. Thread-safe.
namespace nodewright::emulators::kubelet {

class Expectations {
 public:
  // `clock` must outlive it. Expectations older than `ttl` are dropped (a watch event lost).
  explicit Expectations(const core::Clock& clock,
                        std::chrono::nanoseconds ttl = std::chrono::minutes(5));

  // `owner` (its key) created pod `name`; `tag` is the owner's own note (a DaemonSet's node).
  void created(const std::string& owner, const std::string& name, const std::string& tag = "");
  void deleted(const std::string& owner, const std::string& name);
  void forget(const std::string& owner);

  struct Pending {
    std::map<std::string, std::string> creating;  // name -> tag, not cached yet
    std::set<std::string> deleting;               // still cached as active
  };
  // Given the owner's pods as cached (name -> active), forgets what the cache reflects and
  // returns what it does not yet.
  Pending settle(const std::string& owner, const std::map<std::string, bool>& cached);

 private:
  struct Entry {
    std::map<std::string, std::pair<std::string, core::TimePoint>> creating;
    std::map<std::string, core::TimePoint> deleting;
  };

  const core::Clock& clock_;
  const std::chrono::nanoseconds ttl_;
  std::mutex mu_;
  std::map<std::string, Entry> owners_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::emulators::kubelet
