#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"

// A reflector and its cache for one kind, as client-go's SharedIndexInformer: LIST, then WATCH
// from the list's resourceVersion; a watch that ends is resumed from the last resourceVersion
// seen (bookmarks included); a 410 Gone relists; a broken connection backs off exponentially.
namespace nodewright::kube {

struct EventHandler {
  std::function<void(const api::Object& object)> onAdd;
  // Also called with old == new on every resync period.
  std::function<void(const api::Object& oldObject, const api::Object& newObject)> onUpdate;
  // With the last state known: the watch's final object, or the cached one when the deletion
  // was only noticed by a relist.
  std::function<void(const api::Object& lastKnown)> onDelete;
};

struct InformerOptions {
  std::string ns;  // empty: all namespaces
  std::string labelSelector;
  std::string fieldSelector;
  std::chrono::milliseconds resyncPeriod{0};  // 0: none
  int64_t pageSize = 500;
  // Watches are re-established within [min, 2·min) like client-go's 5–10 minutes.
  std::chrono::seconds watchTimeout{300};
  // Reconnect backoff (client-go: 800 ms doubling to 30 s).
  std::chrono::milliseconds backoffBase{800};
  std::chrono::milliseconds backoffMax{30000};
  const core::Clock* clock = nullptr;  // nullptr: system clock
};

class Informer {
 public:
  Informer(Client& client, const api::KindInfo& kind, InformerOptions options = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Handlers run on the informer's thread in event order; keep them short (enqueue a key).
  // A handler added after start first sees an add for every cached object.
  void addHandler(EventHandler handler);
  void addIndex(const std::string& name, IndexFunc fn) { cache_.addIndex(name, std::move(fn)); }

  void start();
  void stop();
  bool hasSynced() const { return synced_.load(); }
  // Blocks until the first LIST landed in the cache or `stop` / the timeout.
  bool waitForSync(std::chrono::milliseconds timeout, std::stop_token stop = {});

  const Cache& cache() const { return cache_; }
  const api::KindInfo& kind() const { return kind_; }

  struct Stats {
    uint64_t lists = 0;
    uint64_t watches = 0;
    uint64_t events = 0;
    uint64_t bookmarks = 0;
    uint64_t gone = 0;  // 410s that forced a relist
    uint64_t failures = 0;
    std::string resourceVersion;
  };
  Stats stats() const;

 private:
  void run(std::stop_token stop);
  void resyncLoop(std::stop_token stop, std::chrono::steady_clock::time_point deadline);
  bool relist(std::stop_token stop);
  // Returns true when the next round should relist (410 or an unusable stream).
  bool watchOnce(std::stop_token stop);
  void applyEvent(WatchEvent& event);
  // Sleeps for the backoff on the clock, or until stopped.
  void backoff(std::stop_token stop);
  void dispatchAdd(const api::Object& object);
  void dispatchUpdate(const api::Object& oldObject, const api::Object& newObject);
  void dispatchDelete(const api::Object& object);

  Client& client_;
  const api::KindInfo& kind_;
  InformerOptions options_;
  const core::Clock& clock_;
  Cache cache_;

  std::mutex handlersMu_;
  std::vector<EventHandler> handlers_;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // sync, stop and backoff wake-ups
  Stats stats_;
  int failures_ = 0;
  std::atomic<bool> synced_{false};
  std::jthread thread_;
  std::jthread resyncThread_;
};

}  // namespace nodewright::kube
