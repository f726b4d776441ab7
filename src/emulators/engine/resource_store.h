#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "emulators/engine/random.h"

namespace nodewright::emulators {

// A cloud's own details of a resource (an EC2 instance's type, subnet and interfaces). The
// emulator derives its type from this; the store never looks inside. Immutable once stored:
// readers share it without locks, and an update stores a new one.
struct Attributes {
  virtual ~Attributes() = default;
};
using AttributesPtr = std::shared_ptr<const Attributes>;

struct Tag {
  std::string key;
  std::string value;
  bool operator==(const Tag&) const = default;
};
// Sorted by key, keys unique (see setTags()).
using Tags = std::vector<Tag>;

// Adds or overwrites `changes` in `tags`, keeping it sorted.
void setTags(Tags& tags, const Tags& changes);
void removeTags(Tags& tags, const std::vector<std::string>& keys);

// A state change due at a time (pending -> running once the launch latency has passed).
struct Transition {
  std::string to;
  core::TimePoint at;
  // Set when `to` is final (terminated): on reaching it the resource counts as deleted, and
  // it stays visible this long (real time) before it is removed.
  std::optional<std::chrono::microseconds> keepFor;
};

struct Resource {
  // Set by the store; update() does not change them.
  std::string type;  // "instance", "fleet", "launch-template"
  std::string id;
  std::string clientToken;
  core::TimePoint created;
  std::optional<core::TimePoint> deleted;  // when it reached a final state
  std::optional<core::TimePoint> expires;  // when a deleted resource is removed
  std::optional<Transition> next;          // changed only by transition() and retire()
  std::string state;

  // Changed by update().
  Tags tags;
  AttributesPtr attributes;

  bool live() const { return !deleted; }
  const std::string* tag(std::string_view key) const;
  template <class T>
  const T* as() const {
    return dynamic_cast<const T*>(attributes.get());
  }
};

struct NewResource {
  std::string type;
  // Empty: generated as idPrefix + "-" + idHexDigits random hex digits ("i-" and 17 digits
  // for EC2 instances).
  std::string id;
  std::string idPrefix;
  int idHexDigits = 17;
  std::string state;
  std::optional<Transition> next;
  Tags tags;
  AttributesPtr attributes;
  // Non-empty: create() is idempotent per (type, clientToken) while the resource is stored.
  std::string clientToken;
};

struct Created {
  Resource resource;
  bool created = false;  // false: an earlier create with the same client token
};

struct Page {
  std::vector<Resource> items;
  std::string nextAfter;  // empty on the last page; else the id to continue after
};

using ResourceFilter = std::function<bool(const Resource&)>;

// Everything a store holds, to save and restore it (see state_file.h): every resource, live or
// still retained, and where the id stream stands, so ids drawn after a restore are new ones.
struct StoreContents {
  std::vector<Resource> resources;
  uint64_t idStream = 0;
};

// Resources of many types, each table ordered by id. Every call first applies the transitions
// that are due by the injected clock's now, so readers never see a state that should have
// changed, and nothing needs a background thread or sleeps. Ids are drawn from a seeded stream,
// so a seeded run creates the same ids. Thread-safe; filters and edits run under the lock and
// must not call back into the store.
class ResourceStore {
 public:
  ResourceStore(const core::Clock& clock, uint64_t seed);

  // Conflict when an explicit id exists. With a client token already used for `type`, returns
  // that resource and created = false.
  core::Result<Created> create(NewResource spec);
  // NotFound once removed (deleted resources are found until they expire).
  core::Result<Resource> get(std::string_view type, std::string_view id);
  core::Result<Resource> findByClientToken(std::string_view type, std::string_view token);
  std::vector<Resource> list(std::string_view type, const ResourceFilter& filter = {});
  // Up to `limit` (0: all) matches with ids after `after`, for token pagination.
  Page page(std::string_view type, const ResourceFilter& filter, std::string_view after,
            size_t limit);

  // Edits tags and attributes; other fields changed by `edit` are ignored.
  core::Result<Resource> update(std::string_view type, std::string_view id,
                                const std::function<void(Resource&)>& edit);
  // Sets `state` now and schedules `next` (replacing any scheduled transition). Conflict on
  // a deleted resource: its life is over.
  core::Result<Resource> transition(std::string_view type, std::string_view id, std::string state,
                                    std::optional<Transition> next = std::nullopt);
  // Puts a live resource in final `state` now; it stays visible for `keepFor`.
  core::Result<Resource> retire(std::string_view type, std::string_view id, std::string state,
                                std::chrono::microseconds keepFor);
  // Forgets a resource at once (no retention). NotFound when absent.
  core::Status remove(std::string_view type, std::string_view id);

  // Applies every transition and removal due by now. Other calls do this first too.
  void advance();

  // A copy of the contents as of now (due transitions applied). Attributes are shared, not
  // copied: they are immutable.
  StoreContents contents();
  // Replaces the whole contents; client tokens and due transitions are rebuilt from the
  // resources. Invalid (and the store unchanged) on a resource without a type or id, or a
  // repeated (type, id) or (type, client token).
  core::Status restore(StoreContents contents);
  // Grows with every create, update, transition, retirement, removal and restore: a saver
  // compares it to know whether anything changed. Transitions that fall due on the clock do not
  // count, since the saved contents already schedule them.
  uint64_t generation();

  size_t liveCount(std::string_view type);
  // Per type: resources not deleted, and deleted ones still visible.
  std::map<std::string, size_t> liveCounts();
  std::map<std::string, size_t> retainedCounts();

 private:
  using Table = std::map<std::string, Resource, std::less<>>;
  // (due time, type, id): the next transition or removal of each resource that has one.
  using DueKey = std::tuple<core::TimePoint, std::string, std::string>;

  void advanceLocked(core::TimePoint now);
  // Applies what is due after a change to `r` and returns r's state; `r` may be gone after.
  Resource settleLocked(Resource& r, core::TimePoint now);
  void scheduleLocked(const Resource& r);
  void unscheduleLocked(const Resource& r);
  void eraseLocked(Table& table, Table::iterator it);
  std::string generateIdLocked(const Table& table, const std::string& prefix, int digits);
  Resource* findLocked(std::string_view type, std::string_view id);
  static std::optional<core::TimePoint> dueOf(const Resource& r);

  const core::Clock& clock_;
  std::mutex mu_;
  RandomStream ids_;
  std::map<std::string, Table, std::less<>> tables_;
  // type -> client token -> id.
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> tokens_;
  std::set<DueKey> due_;
  uint64_t generation_ = 0;
};

}  // namespace nodewright::emulators
