#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/token_bucket.h"

// A de-duplicating work queue with delayed and rate-limited adds, as client-go's
// workqueue.TypedRateLimitingInterface: a key is never processed by two workers at once, a key
// added while it is processed is processed again afterwards, and a key added many times while
// waiting is processed once.
//
// Differences from client-go, on purpose:
// - Delayed keys have no goroutine of their own: they become ready when a get(), tryGet() or
//   length() sees the clock past their due time (a blocked get() wakes at the earliest one).
// - get() returns nullopt as soon as the queue is shut down, without draining ready keys: the
//   controller is stopping and its reconciles would only be cancelled.
// - workqueue_retries_total counts addRateLimited() only, not every addAfter().
// Thread-safe.
namespace nodewright::runtime {

class Registry;
class Counter;
class Gauge;
class Histogram;

struct QueueOptions {
  std::string name;  // the controller's name, the metrics' "name" label
  // Per-item exponential failure backoff and the overall token bucket (client-go's
  // DefaultTypedControllerRateLimiter: the larger of the two delays applies).
  std::chrono::nanoseconds baseDelay = std::chrono::milliseconds(5);
  std::chrono::nanoseconds maxDelay = std::chrono::seconds(1000);
  double qps = 10;
  int burst = 100;
  Registry* metrics = nullptr;  // nullptr: not reported; else must outlive the queue
};

class WorkQueue {
 public:
  // `clock` must outlive the queue.
  WorkQueue(const core::Clock& clock, QueueOptions options);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already waiting; if it is being processed, it is queued again
  // when done() is called.
  void add(const std::string& key);
  // add() once `delay` has passed on the clock (an earlier pending addAfter wins); a delay <= 0
  // adds now.
  void addAfter(const std::string& key, std::chrono::nanoseconds delay);
  // addAfter() by the rate limiter's delay for this key: the larger of base·2^failures (capped
  // at maxDelay) and the token bucket's wait. Counts a failure and a retry.
  void addRateLimited(const std::string& key);
  // Clears the key's failure count (after a successful reconcile).
  void forget(const std::string& key);
  int failures(const std::string& key) const;
  // The per-item backoff part of the next addRateLimited() delay, without recording it (the
  // token bucket cannot be peeked without taking a token).
  std::chrono::nanoseconds nextDelay(const std::string& key) const;

  // Blocks until a key is ready or the queue is shut down (then nullopt). The caller must call
  // done(key) when finished with it.
  std::optional<std::string> get();
  // Non-blocking get(), for tests driving the queue with a fake clock.
  std::optional<std::string> tryGet();
  // The worker finished `key`.
  void done(const std::string& key);

  // Keys ready to process (not counting delayed ones, nor ones re-added while processing).
  size_t length() const;
  // Keys waiting for their delay.
  size_t delayedLength() const;
  // Wakes every get() (they return nullopt); further adds are ignored.
  void shutdown();
  bool shuttingDown() const;

  // Refreshes workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds
  // (get() and done() do too; call it periodically to see stuck workers between them).
  void updateUnfinishedWorkMetrics();

  // get() calls currently blocked, so tests can wait for a getter to block.
  int blockedGettersForTest() const;

 private:
  using TimePoint = std::chrono::steady_clock::time_point;

  // Moves delayed keys due at `now` into the queue.
  void promoteDueLocked(TimePoint now);
  // Queues `key` as added at `at` (its due time for delayed keys, for the latency metric).
  void addLocked(const std::string& key, TimePoint at);
  std::optional<std::string> popLocked(TimePoint now);
  std::optional<TimePoint> nextDueLocked() const;
  void updateUnfinishedLocked(TimePoint now);
  void setDepthLocked();

  // Fixed after construction.
  const core::Clock& clock_;
  const QueueOptions options_;
  const core::ExponentialBackoff backoff_;
  core::TokenBucket bucket_;  // thread-safe itself
  Gauge* depth_ = nullptr;    // the metrics' children; nullptr without a registry
  Counter* adds_ = nullptr;
  Counter* retries_ = nullptr;
  Histogram* queueDuration_ = nullptr;
  Histogram* workDuration_ = nullptr;
  Gauge* unfinished_ = nullptr;
  Gauge* longestRunning_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;     // GUARDED_BY(mu_), ready keys in order
  std::set<std::string> dirty_;       // GUARDED_BY(mu_), keys needing processing
  std::set<std::string> processing_;  // GUARDED_BY(mu_)
  // GUARDED_BY(mu_). Delayed keys: their due time (the earliest wins) and a heap of (due, key)
  // with stale entries skipped when they surface.
  std::map<std::string, TimePoint> waiting_;
  using Due = std::pair<TimePoint, std::string>;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> heap_;
  std::map<std::string, int> failures_;  // GUARDED_BY(mu_)
  // GUARDED_BY(mu_). When each dirty key was added, and each processing key was taken, for the
  // latency and work-duration metrics.
  std::map<std::string, TimePoint> addedAt_;
  std::map<std::string, TimePoint> startedAt_;
  int blockedGetters_ = 0;  // GUARDED_BY(mu_)
  bool shutdown_ = false;   // GUARDED_BY(mu_)
};

}  // namespace nodewright::runtime
