// Store backed by SQLite, with pipelined group commit. Callers queue their writes and wait. One
// writer thread checks and commits whatever is queued as one transaction, without fsync, and
// hands the batch on. Syncer threads fdatasync the write-ahead log, several at once so the
// device merges their flushes; each sync makes every batch committed before it started
// durable, and those batches are then published, in order, to the in-memory map, the owner
// index and the event history before their writes are acknowledged. So an acknowledged write is
// durable and visible, and a slow fsync delays acknowledgements without stalling commits.
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "apiserver/storage/event_history.h"
#include "apiserver/storage/owner_index.h"
#include "apiserver/storage/posix_files.h"
#include "apiserver/storage/sqlite_objects.h"
#include "apiserver/storage/store.h"
#include "apiserver/storage/write_plan.h"

namespace nodewright::apiserver::storage {
namespace {

using ObjectMap = std::map<std::string, StoredPtr, std::less<>>;

// Enough concurrent fdatasyncs for the device to merge flushes; they mostly wait.
constexpr int kSyncers = 4;

core::Error closedError() {
  return core::Error::internal("storage is closed");
}

struct PendingWrite {
  WriteOp op;
  std::promise<core::Result<StoredPtr>> done;
};

// Committed to SQLite, not yet acknowledged. Failed preconditions wait here too: they were
// judged against the batch's predecessors, which must be visible before the answer is.
struct CommittedBatch {
  uint64_t sequence = 0;
  std::vector<PendingWrite> pending;
  std::vector<core::Result<StoredPtr>> results;  // one per pending write
  std::vector<PlannedWrite> planned;
  int64_t revision = 0;  // the store's revision once this batch is published
};

// The latest committed state of a key, as the writer thread knows it before it is published.
struct LatestState {
  StoredPtr stored;  // nullptr: deleted
  int64_t revision = 0;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(LockFile lock, SqliteObjects db, std::optional<WalFile> wal, ObjectMap objects,
              int64_t revision, const StoreOptions& options)
      : options_(options),
        lock_(std::move(lock)),
        db_(std::move(db)),
        wal_(std::move(wal)),
        objects_(std::move(objects)),
        revision_(revision),
        history_(std::make_shared<EventHistory>(revision, options.historySize)),
        committedRevision_(revision) {
    for (const auto& [key, stored] : objects_) {
      owners_.update(key, nullptr, stored->object.get());
    }
    writer_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "nw-store-write");
      runWriter();
    });
    if (wal_) {
      for (int i = 0; i < kSyncers; ++i) {
        syncers_.emplace_back([this] {
          pthread_setname_np(pthread_self(), "nw-store-sync");
          runSyncer();
        });
      }
    }
  }
  ~SqliteStore() override { close(); }

  // storage::Store
  StoredPtr get(std::string_view key) const override {
    std::shared_lock lock(stateMutex_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
  }

  ListResult list(std::string_view prefix, std::string_view startAfter, size_t limit,
                  const std::function<bool(const api::Json&)>& filter) const override {
    ListResult result;
    std::vector<StoredPtr> candidates;
    {
      std::shared_lock lock(stateMutex_);
      result.revision = revision_.load();
      auto it =
          startAfter < prefix ? objects_.lower_bound(prefix) : objects_.upper_bound(startAfter);
      for (; it != objects_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
        if (!filter && limit != 0 && candidates.size() == limit) {
          // Unfiltered: the rest only needs counting, not copying.
          for (; it != objects_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
            ++result.remaining;
          }
          break;
        }
        candidates.push_back(it->second);
      }
    }
    // Filters run outside the lock, so a slow one never delays publishing.
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (limit != 0 && result.items.size() == limit) {
        result.remaining += candidates.size() - i;
        break;
      }
      if (!filter || filter(*candidates[i]->object)) {
        result.items.push_back(std::move(candidates[i]));
      }
    }
    if (result.remaining > 0) {
      result.lastKey = result.items.back()->key;
    }
    return result;
  }

  int64_t revision() const override { return revision_.load(); }

  int64_t oldestWatchable() const override { return history_->oldestWatchable(); }

  core::Result<StoredPtr> write(WriteOp op) override {
    std::future<core::Result<StoredPtr>> done;
    {
      std::lock_guard lock(queueMutex_);
      if (closing_) {
        return core::fail(closedError());
      }
      queue_.push_back(PendingWrite{std::move(op), {}});
      done = queue_.back().done.get_future();
    }
    queued_.notify_one();
    return done.get();
  }

  core::Result<std::unique_ptr<Watch>> watch(std::string_view prefix,
                                             int64_t fromRevision) override {
    return history_->watch(prefix, fromRevision);
  }

  std::vector<std::string> dependentsOf(std::string_view ownerUid) const override {
    std::shared_lock lock(stateMutex_);
    return owners_.dependentsOf(ownerUid);
  }

  void close() override {
    std::lock_guard closing(closeMutex_);
    {
      std::lock_guard lock(queueMutex_);
      closing_ = true;
    }
    queued_.notify_one();
    // Writes queued before the close are committed, synced and acknowledged first.
    if (writer_.joinable()) {
      writer_.join();
    }
    {
      std::lock_guard lock(pipelineMutex_);
      syncersStopping_ = true;
    }
    committed_.notify_all();
    for (std::thread& syncer : syncers_) {
      syncer.join();
    }
    syncers_.clear();
    history_->close();
  }

 private:
  void runWriter() {
    for (;;) {
      std::vector<PendingWrite> batch;
      {
        std::unique_lock lock(queueMutex_);
        queued_.wait(lock, [this] { return !queue_.empty() || closing_; });
        if (queue_.empty()) {
          return;
        }
        size_t take = std::min(queue_.size(), std::max<size_t>(options_.maxBatch, 1));
        for (size_t i = 0; i < take; ++i) {
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      if (auto broken = brokenError(); broken) {
        for (PendingWrite& pending : batch) {
          pending.done.set_value(core::fail(*broken));
        }
        continue;
      }
      std::optional<CommittedBatch> committed = commitBatch(std::move(batch));
      if (!committed) {
        continue;
      }
      if (!wal_) {
        publish(*committed);
        continue;
      }
      {
        std::lock_guard lock(pipelineMutex_);
        committed->sequence = ++lastSequence_;
        pending_.push_back(std::move(*committed));
      }
      committed_.notify_one();
    }
  }

  // Checks every op against the latest committed state plus the batch's earlier ops, and
  // commits the passing ones in one transaction. A failed commit fails the whole batch at once
  // and returns nothing.
  std::optional<CommittedBatch> commitBatch(std::vector<PendingWrite> batch) {
    forgetPublished();
    CommittedBatch committed;
    std::unordered_map<std::string, LatestState> batchLatest;
    int64_t next = committedRevision_;
    for (PendingWrite& pending : batch) {
      std::string key = pending.op.key;
      auto plan = planWrite(std::move(pending.op), latestState(batchLatest, key), next + 1);
      if (!plan) {
        committed.results.push_back(core::fail(plan.error()));
        continue;
      }
      ++next;
      batchLatest[key] =
          LatestState{plan->type == EventType::Deleted ? nullptr : plan->stored, next};
      committed.results.push_back(plan->stored);
      committed.planned.push_back(std::move(*plan));
    }
    if (!committed.planned.empty()) {
      if (auto ok = db_.commit(committed.planned, next); !ok) {
        core::Error failure =
            ok.error().wrap("committing " + std::to_string(committed.planned.size()) + " writes");
        for (PendingWrite& pending : batch) {
          pending.done.set_value(core::fail(failure));
        }
        return std::nullopt;
      }
    }
    committedRevision_ = next;
    for (auto& [key, latest] : batchLatest) {
      unpublished_.insert_or_assign(key, std::move(latest));
    }
    committed.revision = next;
    committed.pending = std::move(batch);
    return committed;
  }

  // Drops the writer's record of states that the map now holds.
  void forgetPublished() {
    const int64_t published = revision_.load();
    std::erase_if(unpublished_,
                  [published](const auto& entry) { return entry.second.revision <= published; });
  }

  StoredPtr latestState(const std::unordered_map<std::string, LatestState>& batchLatest,
                        const std::string& key) const {
    if (auto it = batchLatest.find(key); it != batchLatest.end()) {
      return it->second.stored;
    }
    if (auto it = unpublished_.find(key); it != unpublished_.end()) {
      return it->second.stored;
    }
    std::shared_lock lock(stateMutex_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
  }

  void runSyncer() {
    std::unique_lock lock(pipelineMutex_);
    for (;;) {
      committed_.wait(lock, [this] { return lastSequence_ > syncStarted_ || syncersStopping_; });
      if (lastSequence_ <= syncStarted_) {
        return;  // stopping, and every committed batch has a sync under way or done
      }
      const uint64_t target = lastSequence_;
      syncStarted_ = target;
      lock.unlock();
      core::Status synced = wal_->sync();
      lock.lock();
      if (!synced) {
        // The commits may or may not be on disk: memory can no longer follow the file.
        markBroken(synced.error());
      }
      durable_ = std::max(durable_, target);
      // Publishing under the pipeline lock keeps batches in order across syncers.
      while (!pending_.empty() && pending_.front().sequence <= durable_) {
        CommittedBatch batch = std::move(pending_.front());
        pending_.pop_front();
        if (auto broken = brokenError(); broken) {
          for (PendingWrite& write : batch.pending) {
            write.done.set_value(core::fail(*broken));
          }
        } else {
          publish(batch);
        }
      }
    }
  }

  void publish(CommittedBatch& batch) {
    if (!batch.planned.empty()) {
      std::vector<Event> events;
      events.reserve(batch.planned.size());
      {
        std::unique_lock lock(stateMutex_);
        for (const PlannedWrite& write : batch.planned) {
          const std::string& key = write.stored->key;
          const api::Json* previous = write.previous ? write.previous->object.get() : nullptr;
          if (write.type == EventType::Deleted) {
            owners_.update(key, previous, nullptr);
            objects_.erase(key);
          } else {
            owners_.update(key, previous, write.stored->object.get());
            objects_.insert_or_assign(key, write.stored);
          }
          events.push_back(Event{write.type, write.stored, write.previous});
        }
        revision_.store(batch.revision);
      }
      history_->append(std::move(events));
    }
    for (size_t i = 0; i < batch.pending.size(); ++i) {
      batch.pending[i].done.set_value(std::move(batch.results[i]));
    }
  }

  void markBroken(const core::Error& cause) {
    std::lock_guard lock(brokenMutex_);
    if (!broken_) {
      broken_ = cause.wrap("storage failed, restart to reload it");
    }
  }

  std::optional<core::Error> brokenError() const {
    std::lock_guard lock(brokenMutex_);
    return broken_;
  }

  const StoreOptions options_;
  const LockFile lock_;
  SqliteObjects db_;                  // writer thread only
  const std::optional<WalFile> wal_;  // set when commits are synced before acknowledgement

  // The published state: mutated only by publish(), on the writer or a syncer thread.
  mutable std::shared_mutex stateMutex_;
  ObjectMap objects_;  // GUARDED_BY(stateMutex_)
  OwnerIndex owners_;  // GUARDED_BY(stateMutex_)
  std::atomic<int64_t> revision_;
  const std::shared_ptr<EventHistory> history_;

  // Writer thread only: the committed state that is not yet published.
  int64_t committedRevision_;
  std::unordered_map<std::string, LatestState> unpublished_;

  std::mutex queueMutex_;
  std::condition_variable queued_;
  std::deque<PendingWrite> queue_;  // GUARDED_BY(queueMutex_)
  bool closing_ = false;            // GUARDED_BY(queueMutex_)

  std::mutex pipelineMutex_;
  std::condition_variable committed_;
  std::deque<CommittedBatch> pending_;  // GUARDED_BY(pipelineMutex_), by sequence
  uint64_t lastSequence_ = 0;           // GUARDED_BY(pipelineMutex_), of the newest batch
  uint64_t syncStarted_ = 0;            // GUARDED_BY(pipelineMutex_), covered by a started sync
  uint64_t durable_ = 0;                // GUARDED_BY(pipelineMutex_), covered by a finished sync
  bool syncersStopping_ = false;        // GUARDED_BY(pipelineMutex_)

  mutable std::mutex brokenMutex_;
  std::optional<core::Error> broken_;  // GUARDED_BY(brokenMutex_)

  std::mutex closeMutex_;
  std::thread writer_;
  std::vector<std::thread> syncers_;
};

}  // namespace

core::Result<std::unique_ptr<Store>> openSqliteStore(const std::string& path,
                                                     const StoreOptions& options) {
  auto lock = LockFile::acquire(path + ".lock");
  if (!lock) {
    return core::fail(lock.error());
  }
  auto db = SqliteObjects::open(path);
  if (!db) {
    return core::fail(db.error());
  }
  std::optional<WalFile> wal;
  if (options.fsync) {
    auto opened = WalFile::open(path);
    if (!opened) {
      return core::fail(opened.error());
    }
    wal.emplace(std::move(*opened));
  }
  ObjectMap objects;
  int64_t newest = 0;
  auto counter = db->load([&](std::string_view key, int64_t revision,
                              std::string_view value) -> core::Status {
    api::Json object = api::Json::parse(value, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) {
      return core::fail(core::Error::internal("object " + std::string(key) + " is not valid JSON"));
    }
    auto stored = std::make_shared<Stored>();
    stored->key = key;
    stored->revision = revision;
    stored->object = std::make_shared<const api::Json>(std::move(object));
    stored->text = std::make_shared<const std::string>(value);
    objects.emplace_hint(objects.end(), stored->key, std::move(stored));
    newest = std::max(newest, revision);
    return core::ok();
  });
  if (!counter) {
    return core::fail(counter.error().wrap("loading " + path));
  }
  // The counter is written with every commit; an object newer than it means a damaged file.
  if (newest > *counter) {
    return core::fail(core::Error::internal("loading " + path + ": object revision " +
                                            std::to_string(newest) + " is past the counter " +
                                            std::to_string(*counter)));
  }
  return std::make_unique<SqliteStore>(std::move(*lock), std::move(*db), std::move(wal),
                                       std::move(objects), *counter, options);
}

}  // namespace nodewright::apiserver::storage
