#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"

// Coalesces calls made close together into one request, as Karpenter batches DescribeInstances
// and TerminateInstances: a burst of 100 NodeClaims reconciling at once costs one API call,
// not 100, against EC2's request buckets. A batch closes when no call has joined for `idle`,
// when it has been open for `max`, or when it holds `maxItems` ids; times are the injected
// clock's, so tests close batches by advancing a FakeClock.
namespace nodewright::cloud::aws {

struct BatcherOptions {
  std::chrono::milliseconds idle{100};
  std::chrono::milliseconds max{1000};
  size_t maxItems = 500;
};

// When a batch first joined at `first` and last joined at `last` closes.
std::chrono::steady_clock::time_point batchDeadline(std::chrono::steady_clock::time_point first,
                                                    std::chrono::steady_clock::time_point last,
                                                    const BatcherOptions& options);

// The first caller of a batch waits out its window and runs it for everyone; the others wait
// for its answer. Thread-safe; `clock` must outlive it.
template <class T>
class Batcher {
 public:
  // Runs one batch of distinct ids; the answer for each id. An id left out of the answer gets
  // NotFound.
  using Run =
      std::function<std::map<std::string, core::Result<T>>(const std::vector<std::string>&)>;

  Batcher(const core::Clock& clock, BatcherOptions options, Run run)
      : clock_(clock), options_(options), run_(std::move(run)) {}

  // The answer for `id` from the batch it joined. Blocks until that batch has run.
  core::Result<T> call(const std::string& id) {
    std::unique_lock lock(mu_);
    std::shared_ptr<Batch> batch = open_;
    const bool leader = batch == nullptr || batch->ids.size() >= options_.maxItems;
    const auto now = clock_.steadyNow();
    if (leader) {
      batch = std::make_shared<Batch>();
      batch->first = now;
      open_ = batch;
    }
    if (batch->joined.insert(id).second) {
      batch->ids.push_back(id);
    }
    batch->last = now;
    ++batch->callers;
    cv_.notify_all();
    if (leader) {
      runWhenDue(lock, batch);
    } else {
      while (!batch->done) {
        // Woken by the leader's notify; the deadline only bounds one wait.
        clock_.waitUntil(lock, cv_, clock_.steadyNow() + options_.max + options_.idle);
      }
    }
    auto it = batch->answers.find(id);
    if (it == batch->answers.end()) {
      return core::fail(core::Error::notFound(id + " not found"));
    }
    return it->second;
  }

  // Callers waiting in the batch still open (tests wait for a burst to have joined).
  size_t waitingForTest() const {
    std::lock_guard lock(mu_);
    return open_ == nullptr ? 0 : open_->callers;
  }
  uint64_t batchesRunForTest() const {
    std::lock_guard lock(mu_);
    return batchesRun_;
  }

 private:
  struct Batch {
    std::vector<std::string> ids;
    std::set<std::string> joined;
    size_t callers = 0;
    std::chrono::steady_clock::time_point first;
    std::chrono::steady_clock::time_point last;
    bool done = false;
    std::map<std::string, core::Result<T>> answers;
  };

  void runWhenDue(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Batch>& batch) {
    while (batch->ids.size() < options_.maxItems) {
      const auto deadline = batchDeadline(batch->first, batch->last, options_);
      if (clock_.steadyNow() >= deadline) {
        break;
      }
      clock_.waitUntil(lock, cv_, deadline);
    }
    if (open_ == batch) {
      open_.reset();
    }
    ++batchesRun_;
    lock.unlock();
    auto answers = run_(batch->ids);
    lock.lock();
    batch->answers = std::move(answers);
    batch->done = true;
    cv_.notify_all();
  }

  const core::Clock& clock_;
  const BatcherOptions options_;
  const Run run_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<Batch> open_;  // GUARDED_BY(mu_); the batch new calls join
  uint64_t batchesRun_ = 0;      // GUARDED_BY(mu_)
};

}  // namespace nodewright::cloud::aws
