#include "runtime/workqueue.h"

#include <algorithm>

#include "runtime/metrics.h"

namespace nodewright::runtime {
namespace {

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

WorkQueue::WorkQueue(const core::Clock& clock, QueueOptions options)
    : clock_(clock),
      options_(std::move(options)),
      backoff_{options_.baseDelay, options_.maxDelay},
      bucket_(clock, options_.qps, options_.burst) {
  if (options_.metrics == nullptr) {
    return;
  }
  // controller-runtime's names, labels, help and buckets (pkg/internal/metrics/workqueue.go):
  // a controller's queue is named after it, so both labels carry the name; this queue has no
  // priorities, so depth's priority is "".
  Registry& r = *options_.metrics;
  const Labels names{"name", "controller"};
  const Labels labels{options_.name, options_.name};
  const std::vector<double> buckets = Registry::exponentialBuckets(10e-9, 10, 12);
  depth_ = &r.gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority",
                    {"name", "controller", "priority"})
                .with({options_.name, options_.name, ""});
  adds_ = &r.counter("workqueue_adds_total", "Total number of adds handled by workqueue", names)
               .with(labels);
  retries_ =
      &r.counter("workqueue_retries_total", "Total number of retries handled by workqueue", names)
           .with(labels);
  queueDuration_ =
      &r.histogram("workqueue_queue_duration_seconds",
                   "How long in seconds an item stays in workqueue before being requested", names,
                   buckets)
           .with(labels);
  workDuration_ =
      &r.histogram("workqueue_work_duration_seconds",
                   "How long in seconds processing an item from workqueue takes.", names, buckets)
           .with(labels);
  unfinished_ = &r.gauge("workqueue_unfinished_work_seconds",
                         "How many seconds of work has been done that is in progress and hasn't "
                         "been observed by work_duration. Large values indicate stuck threads. "
                         "One can deduce the number of stuck threads by observing the rate at "
                         "which this increases.",
                         names)
                     .with(labels);
  longestRunning_ = &r.gauge("workqueue_longest_running_processor_seconds",
                             "How many seconds has the longest running processor for workqueue "
                             "been running.",
                             names)
                         .with(labels);
  // Families with labels render only once a child exists; start at zero so they show.
  depth_->set(0);
}

WorkQueue::~WorkQueue() {
  shutdown();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  if (shutdown_) {
    return;
  }
  addLocked(key, clock_.steadyNow());
}

void WorkQueue::addLocked(const std::string& key, TimePoint at) {
  if (dirty_.contains(key)) {
    return;
  }
  dirty_.insert(key);
  addedAt_.emplace(key, at);
  if (adds_ != nullptr) {
    adds_->inc();
  }
  setDepthLocked();
  // A processing key goes back into the queue on done(), so no worker takes it meanwhile.
  if (processing_.contains(key)) {
    return;
  }
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::addAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard lock(mu_);
  if (shutdown_) {
    return;
  }
  const TimePoint now = clock_.steadyNow();
  if (delay <= std::chrono::nanoseconds::zero()) {
    addLocked(key, now);
    return;
  }
  const TimePoint due = now + std::chrono::duration_cast<TimePoint::duration>(delay);
  auto it = waiting_.find(key);
  if (it != waiting_.end() && it->second <= due) {
    return;
  }
  waiting_[key] = due;
  heap_.emplace(due, key);
  // Blocked getters wait for the earliest due time; this one may be earlier.
  cv_.notify_all();
}

void WorkQueue::addRateLimited(const std::string& key) {
  std::chrono::nanoseconds delay;
  {
    std::lock_guard lock(mu_);
    if (shutdown_) {
      return;
    }
    int& n = failures_[key];
    delay = backoff_.delay(n);
    ++n;
    if (retries_ != nullptr) {
      retries_->inc();
    }
  }
  // Both limiters always count, as client-go's MaxOf: every retry takes a token.
  delay = std::max(delay, bucket_.reserve());
  addAfter(key, delay);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

std::chrono::nanoseconds WorkQueue::nextDelay(const std::string& key) const {
  return backoff_.delay(failures(key));
}

void WorkQueue::promoteDueLocked(TimePoint now) {
  while (!heap_.empty() && heap_.top().first <= now) {
    Due top = heap_.top();
    heap_.pop();
    auto it = waiting_.find(top.second);
    // Stale: the key was moved to an earlier time (and maybe already promoted).
    if (it == waiting_.end() || it->second != top.first) {
      continue;
    }
    waiting_.erase(it);
    addLocked(top.second, top.first);
  }
}

std::optional<WorkQueue::TimePoint> WorkQueue::nextDueLocked() const {
  if (heap_.empty()) {
    return std::nullopt;
  }
  // May be a stale entry: the getter then wakes early and loops.
  return heap_.top().first;
}

std::optional<std::string> WorkQueue::popLocked(TimePoint now) {
  if (queue_.empty()) {
    return std::nullopt;
  }
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  if (auto it = addedAt_.find(key); it != addedAt_.end()) {
    if (queueDuration_ != nullptr) {
      queueDuration_->observe(seconds(now - it->second));
    }
    addedAt_.erase(it);
  }
  startedAt_[key] = now;
  setDepthLocked();
  updateUnfinishedLocked(now);
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  ++blockedGetters_;
  while (!shutdown_) {
    const TimePoint now = clock_.steadyNow();
    promoteDueLocked(now);
    if (auto key = popLocked(now)) {
      --blockedGetters_;
      return key;
    }
    if (auto due = nextDueLocked()) {
      clock_.waitUntil(lock, cv_, *due);
    } else {
      cv_.wait(lock);
    }
  }
  --blockedGetters_;
  return std::nullopt;
}

std::optional<std::string> WorkQueue::tryGet() {
  std::lock_guard lock(mu_);
  if (shutdown_) {
    return std::nullopt;
  }
  const TimePoint now = clock_.steadyNow();
  promoteDueLocked(now);
  return popLocked(now);
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  if (processing_.erase(key) == 0) {
    return;
  }
  const TimePoint now = clock_.steadyNow();
  if (auto it = startedAt_.find(key); it != startedAt_.end()) {
    if (workDuration_ != nullptr) {
      workDuration_->observe(seconds(now - it->second));
    }
    startedAt_.erase(it);
  }
  updateUnfinishedLocked(now);
  if (dirty_.contains(key) && !shutdown_) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

size_t WorkQueue::length() const {
  std::lock_guard lock(mu_);
  // Due delayed keys count as ready though not promoted yet (that happens in get()).
  const TimePoint now = clock_.steadyNow();
  size_t n = queue_.size();
  for (const auto& [key, due] : waiting_) {
    if (due <= now && !dirty_.contains(key) && !processing_.contains(key)) {
      ++n;
    }
  }
  return n;
}

size_t WorkQueue::delayedLength() const {
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.steadyNow();
  return static_cast<size_t>(std::count_if(waiting_.begin(), waiting_.end(),
                                           [&](const auto& entry) { return entry.second > now; }));
}

void WorkQueue::shutdown() {
  std::lock_guard lock(mu_);
  shutdown_ = true;
  cv_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard lock(mu_);
  return shutdown_;
}

void WorkQueue::updateUnfinishedWorkMetrics() {
  std::lock_guard lock(mu_);
  updateUnfinishedLocked(clock_.steadyNow());
}

int WorkQueue::blockedGettersForTest() const {
  std::lock_guard lock(mu_);
  return blockedGetters_;
}

void WorkQueue::updateUnfinishedLocked(TimePoint now) {
  if (unfinished_ == nullptr) {
    return;
  }
  double total = 0;
  double longest = 0;
  for (const auto& [key, started] : startedAt_) {
    const double s = seconds(now - started);
    total += s;
    longest = std::max(longest, s);
  }
  unfinished_->set(total);
  longestRunning_->set(longest);
}

void WorkQueue::setDepthLocked() {
  if (depth_ != nullptr) {
    depth_->set(static_cast<double>(dirty_.size()));
  }
}

}  // namespace nodewright::runtime
