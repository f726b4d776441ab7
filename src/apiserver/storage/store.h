#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"

// Durable object storage of the embedded API server: SQLite in WAL mode for durability, and an
// in-memory copy plus a bounded event history that serve reads and watches without touching disk.
//
// Keys are "<resource>/<namespace>/<name>" ("pods/default/web-1", "nodes//ip-10-0-0-1",
// "nodepools.karpenter.sh//default"); a list or watch names a key prefix ("pods/default/").
// Every successful write gets the next value of one monotonic revision counter, which is also
// the object's metadata.resourceVersion. The counter survives restarts.
namespace nodewright::apiserver::storage {

// An object as stored: immutable once published, shared by readers, lists and watch events.
struct Stored {
  std::string key;
  int64_t revision = 0;
  std::shared_ptr<const api::Json> object;  // metadata.resourceVersion == revision
  std::shared_ptr<const std::string> text;  // compact JSON of object, ready to send
};
using StoredPtr = std::shared_ptr<const Stored>;

enum class EventType { Added, Modified, Deleted };

struct Event {
  EventType type;
  // For Deleted: the last state of the object, with the deletion's revision.
  StoredPtr stored;
  // The state this event replaced (nullptr for Added), so a watch with a selector can tell an
  // object entering or leaving the selection.
  StoredPtr previous;
};

struct WriteOp {
  enum class Kind { Put, Delete };
  Kind kind = Kind::Put;
  std::string key;
  // Precondition: kMustNotExist (create), kAny (unconditional), or the revision the object must
  // currently have (optimistic concurrency). A failed precondition is Code::Conflict; deleting
  // a missing key is Code::NotFound.
  int64_t expectRevision = kAny;
  api::Json object;  // for Put; metadata.resourceVersion is set by the store
  static constexpr int64_t kMustNotExist = 0;
  static constexpr int64_t kAny = -1;
};

struct ListResult {
  std::vector<StoredPtr> items;
  int64_t revision = 0;  // the store's revision when the list was taken
  // Set when `limit` cut the list short: the last key returned.
  std::optional<std::string> lastKey;
  size_t remaining = 0;
};

// One watch subscription. next() blocks until events after the cursor arrive, the timeout
// passes, or the store closes; it returns the events in revision order (possibly none).
class Watch {
 public:
  virtual ~Watch() = default;
  // Code::NotFound-free contract: an error means the history no longer reaches the cursor
  // (Code::Conflict, "too old resource version"), or the store closed (Code::Internal).
  virtual core::Result<std::vector<Event>> next(std::chrono::milliseconds timeout) = 0;
  virtual int64_t cursor() const = 0;
};

struct StoreOptions {
  // Events kept in memory for watches that resume from an older resourceVersion.
  size_t historySize = 10000;
  // Writes committed together in one SQLite transaction at most (group commit).
  size_t maxBatch = 512;
  // Every commit is fsynced (the WAL, by the store's syncer threads) before it is acknowledged.
  bool fsync = true;
};

class Store {
 public:
  virtual ~Store() = default;

  virtual StoredPtr get(std::string_view key) const = 0;
  // Keys > startAfter under prefix, in key order; limit 0 = no limit; filter may reject items
  // (rejected items do not count toward limit).
  virtual ListResult list(std::string_view prefix, std::string_view startAfter, size_t limit,
                          const std::function<bool(const api::Json&)>& filter = {}) const = 0;
  virtual int64_t revision() const = 0;
  // Oldest revision a watch can still start after (events after it are all retained).
  virtual int64_t oldestWatchable() const = 0;

  // Durable before it returns. Returns the stored state (for Delete: the deleted object with
  // the deletion's revision).
  virtual core::Result<StoredPtr> write(WriteOp op) = 0;

  // Events with revision > fromRevision under prefix; error (Code::Conflict) when fromRevision
  // is older than the retained history.
  virtual core::Result<std::unique_ptr<Watch>> watch(std::string_view prefix,
                                                     int64_t fromRevision) = 0;

  // Keys of the objects whose metadata.ownerReferences name this uid.
  virtual std::vector<std::string> dependentsOf(std::string_view ownerUid) const = 0;

  // Wakes every blocked Watch::next with Code::Internal; later writes fail.
  virtual void close() = 0;
};

// Opens (creating if needed) the SQLite database at `path` and loads every object.
core::Result<std::unique_ptr<Store>> openSqliteStore(const std::string& path,
                                                     const StoreOptions& options = {});

}  // namespace nodewright::apiserver::storage
