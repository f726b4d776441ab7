#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "apiserver/storage/store.h"

// The bounded, in-memory tail of the store's event stream, and the watches that read it.
// Thread-safe. Watches share ownership, so a watch outliving its store reports the close
// instead of touching freed memory.
namespace nodewright::apiserver::storage {

class EventHistory : public std::enable_shared_from_this<EventHistory> {
 public:
  // `revision` is the store's revision when the history starts: watches may start from it.
  // Keeps the last `capacity` events (at least one).
  EventHistory(int64_t revision, size_t capacity);

  // REQUIRES: the events' revisions follow on from the last appended, one apart.
  void append(std::vector<Event> events);
  // Every event after this revision is retained.
  int64_t oldestWatchable() const;
  // Wakes every waiting watch; from now on they fail with Code::Internal.
  void close();

  // Fails with Code::Conflict when events after fromRevision were already dropped.
  core::Result<std::unique_ptr<Watch>> watch(std::string_view prefix, int64_t fromRevision);

  // Waits until events after `cursor` under `prefix` exist, the timeout passes or the history
  // closes. Advances `cursor` past every event seen, matching or not.
  core::Result<std::vector<Event>> next(int64_t& cursor, std::string_view prefix,
                                        std::chrono::milliseconds timeout);

 private:
  int64_t oldestLocked() const;
  core::Status reachableLocked(int64_t fromRevision) const;

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable appended_;
  std::deque<Event> events_;  // GUARDED_BY(mutex_), consecutive revisions
  int64_t lastRevision_;      // GUARDED_BY(mutex_), of the newest event or the start
  bool closed_ = false;       // GUARDED_BY(mutex_)
};

}  // namespace nodewright::apiserver::storage
