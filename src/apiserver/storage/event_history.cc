#include "apiserver/storage/event_history.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "core/check.h"

namespace nodewright::apiserver::storage {
namespace {

class HistoryWatch final : public Watch {
 public:
  HistoryWatch(std::shared_ptr<EventHistory> history, std::string_view prefix, int64_t cursor)
      : history_(std::move(history)), prefix_(prefix), cursor_(cursor) {}

  // storage::Watch
  core::Result<std::vector<Event>> next(std::chrono::milliseconds timeout) override {
    int64_t cursor = cursor_.load();
    auto events = history_->next(cursor, prefix_, timeout);
    cursor_.store(cursor);
    return events;
  }
  int64_t cursor() const override { return cursor_.load(); }

 private:
  const std::shared_ptr<EventHistory> history_;
  const std::string prefix_;
  // Atomic so another thread may read the position while next() runs.
  std::atomic<int64_t> cursor_;
};

core::Error closedError() {
  return core::Error::internal("storage is closed");
}

}  // namespace

EventHistory::EventHistory(int64_t revision, size_t capacity)
    : capacity_(std::max<size_t>(capacity, 1)), lastRevision_(revision) {}

void EventHistory::append(std::vector<Event> events) {
  if (events.empty()) {
    return;
  }
  std::vector<Event> evicted;  // freed after unlocking: old objects take a while to destroy
  {
    std::lock_guard lock(mutex_);
    for (Event& event : events) {
      NW_CHECK(event.stored->revision == lastRevision_ + 1);
      lastRevision_ = event.stored->revision;
      events_.push_back(std::move(event));
    }
    while (events_.size() > capacity_) {
      evicted.push_back(std::move(events_.front()));
      events_.pop_front();
    }
  }
  appended_.notify_all();
}

int64_t EventHistory::oldestWatchable() const {
  std::lock_guard lock(mutex_);
  return oldestLocked();
}

void EventHistory::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  appended_.notify_all();
}

core::Result<std::unique_ptr<Watch>> EventHistory::watch(std::string_view prefix,
                                                         int64_t fromRevision) {
  std::lock_guard lock(mutex_);
  if (closed_) {
    return core::fail(closedError());
  }
  if (auto reachable = reachableLocked(fromRevision); !reachable) {
    return core::fail(reachable.error());
  }
  return std::make_unique<HistoryWatch>(shared_from_this(), prefix, fromRevision);
}

core::Result<std::vector<Event>> EventHistory::next(int64_t& cursor, std::string_view prefix,
                                                    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (closed_) {
      return core::fail(closedError());
    }
    if (auto reachable = reachableLocked(cursor); !reachable) {
      return core::fail(reachable.error());
    }
    std::vector<Event> matching;
    if (lastRevision_ > cursor) {
      // Revisions are consecutive, so the first unseen event is found by arithmetic.
      size_t first = static_cast<size_t>(cursor - oldestLocked());
      for (size_t i = first; i < events_.size(); ++i) {
        if (std::string_view(events_[i].stored->key).starts_with(prefix)) {
          matching.push_back(events_[i]);
        }
      }
      cursor = lastRevision_;
    }
    if (!matching.empty()) {
      return matching;
    }
    if (appended_.wait_until(lock, deadline) == std::cv_status::timeout) {
      // One last look: events may have arrived together with the deadline.
      if (!closed_ && lastRevision_ <= cursor) {
        return std::vector<Event>{};
      }
    }
  }
}

int64_t EventHistory::oldestLocked() const {
  return events_.empty() ? lastRevision_ : events_.front().stored->revision - 1;
}

core::Status EventHistory::reachableLocked(int64_t fromRevision) const {
  int64_t oldest = oldestLocked();
  if (fromRevision < oldest) {
    // kube-apiserver's wording; clients recognise it and relist.
    return core::fail(core::Error(
        core::Code::Conflict, "too old resource version: " + std::to_string(fromRevision) + " (" +
                                  std::to_string(oldest) + ")"));
  }
  return core::ok();
}

}  // namespace nodewright::apiserver::storage
