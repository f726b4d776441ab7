#include "emulators/engine/resource_store.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/check.h"

namespace nodewright::emulators {
namespace {

core::Error notFound(std::string_view type, std::string_view id) {
  return core::Error::notFound(std::string(type) + " " + std::string(id) + " not found");
}

}  // namespace

void setTags(Tags& tags, const Tags& changes) {
  for (const Tag& change : changes) {
    auto it = std::lower_bound(tags.begin(), tags.end(), change.key,
                               [](const Tag& t, const std::string& key) { return t.key < key; });
    if (it != tags.end() && it->key == change.key) {
      it->value = change.value;
    } else {
      tags.insert(it, change);
    }
  }
}

void removeTags(Tags& tags, const std::vector<std::string>& keys) {
  std::erase_if(
      tags, [&](const Tag& t) { return std::find(keys.begin(), keys.end(), t.key) != keys.end(); });
}

const std::string* Resource::tag(std::string_view key) const {
  for (const Tag& t : tags) {
    if (t.key == key) {
      return &t.value;
    }
  }
  return nullptr;
}

ResourceStore::ResourceStore(const core::Clock& clock, uint64_t seed)
    : clock_(clock), ids_(RandomStream::named(seed, "resource-ids")) {}

core::Result<Created> ResourceStore::create(NewResource spec) {
  NW_CHECK(!spec.type.empty());
  std::lock_guard lock(mu_);
  const core::TimePoint now = clock_.now();
  advanceLocked(now);
  Table& table = tables_[spec.type];
  auto& tokens = tokens_[spec.type];
  if (!spec.clientToken.empty()) {
    if (auto it = tokens.find(spec.clientToken); it != tokens.end()) {
      Resource* existing = findLocked(spec.type, it->second);
      NW_CHECK(existing != nullptr);
      return Created{*existing, false};
    }
  }
  if (spec.id.empty()) {
    spec.id = generateIdLocked(table, spec.idPrefix, spec.idHexDigits);
  } else if (table.contains(spec.id)) {
    return core::fail(core::Error(core::Code::Conflict, spec.type + " " + spec.id + " exists"));
  }
  Resource r;
  r.type = std::move(spec.type);
  r.id = spec.id;
  r.clientToken = std::move(spec.clientToken);
  r.created = now;
  r.state = std::move(spec.state);
  r.next = std::move(spec.next);
  std::sort(spec.tags.begin(), spec.tags.end(),
            [](const Tag& a, const Tag& b) { return a.key < b.key; });
  setTags(r.tags, spec.tags);
  r.attributes = std::move(spec.attributes);
  if (!r.clientToken.empty()) {
    tokens.emplace(r.clientToken, r.id);
  }
  Resource& stored = table.emplace(r.id, std::move(r)).first->second;
  scheduleLocked(stored);
  ++generation_;
  return Created{settleLocked(stored, now), true};
}

core::Result<Resource> ResourceStore::get(std::string_view type, std::string_view id) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  Resource* r = findLocked(type, id);
  if (r == nullptr) {
    return core::fail(notFound(type, id));
  }
  return *r;
}

core::Result<Resource> ResourceStore::findByClientToken(std::string_view type,
                                                        std::string_view token) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  auto byType = tokens_.find(type);
  if (byType != tokens_.end()) {
    if (auto it = byType->second.find(token); it != byType->second.end()) {
      if (Resource* r = findLocked(type, it->second)) {
        return *r;
      }
    }
  }
  return core::fail(core::Error::notFound("no " + std::string(type) + " with client token " +
                                          std::string(token)));
}

std::vector<Resource> ResourceStore::list(std::string_view type, const ResourceFilter& filter) {
  return page(type, filter, {}, 0).items;
}

Page ResourceStore::page(std::string_view type, const ResourceFilter& filter,
                         std::string_view after, size_t limit) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  Page out;
  auto table = tables_.find(type);
  if (table == tables_.end()) {
    return out;
  }
  auto it = after.empty() ? table->second.begin() : table->second.upper_bound(after);
  for (; it != table->second.end(); ++it) {
    if (filter && !filter(it->second)) {
      continue;
    }
    if (limit != 0 && out.items.size() == limit) {
      out.nextAfter = out.items.back().id;
      break;
    }
    out.items.push_back(it->second);
  }
  return out;
}

core::Result<Resource> ResourceStore::update(std::string_view type, std::string_view id,
                                             const std::function<void(Resource&)>& edit) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  Resource* r = findLocked(type, id);
  if (r == nullptr) {
    return core::fail(notFound(type, id));
  }
  Resource copy = *r;
  edit(copy);
  std::sort(copy.tags.begin(), copy.tags.end(),
            [](const Tag& a, const Tag& b) { return a.key < b.key; });
  r->tags.clear();
  setTags(r->tags, copy.tags);
  r->attributes = std::move(copy.attributes);
  ++generation_;
  return *r;
}

core::Result<Resource> ResourceStore::transition(std::string_view type, std::string_view id,
                                                 std::string state,
                                                 std::optional<Transition> next) {
  std::lock_guard lock(mu_);
  const core::TimePoint now = clock_.now();
  advanceLocked(now);
  Resource* r = findLocked(type, id);
  if (r == nullptr) {
    return core::fail(notFound(type, id));
  }
  if (r->deleted) {
    return core::fail(core::Error(core::Code::Conflict,
                                  std::string(type) + " " + std::string(id) + " is " + r->state));
  }
  unscheduleLocked(*r);
  r->state = std::move(state);
  r->next = std::move(next);
  scheduleLocked(*r);
  ++generation_;
  return settleLocked(*r, now);
}

core::Result<Resource> ResourceStore::retire(std::string_view type, std::string_view id,
                                             std::string state, std::chrono::microseconds keepFor) {
  return transition(type, id, state,
                    Transition{.to = state, .at = clock_.now(), .keepFor = keepFor});
}

core::Status ResourceStore::remove(std::string_view type, std::string_view id) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  auto table = tables_.find(type);
  if (table == tables_.end()) {
    return core::fail(notFound(type, id));
  }
  auto it = table->second.find(id);
  if (it == table->second.end()) {
    return core::fail(notFound(type, id));
  }
  unscheduleLocked(it->second);
  eraseLocked(table->second, it);
  ++generation_;
  return core::ok();
}

void ResourceStore::advance() {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
}

StoreContents ResourceStore::contents() {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  StoreContents out;
  out.idStream = ids_.state();
  for (const auto& [type, table] : tables_) {
    for (const auto& [id, r] : table) {
      out.resources.push_back(r);
    }
  }
  return out;
}

core::Status ResourceStore::restore(StoreContents contents) {
  std::map<std::string, Table, std::less<>> tables;
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> tokens;
  for (Resource& r : contents.resources) {
    if (r.type.empty() || r.id.empty()) {
      return core::fail(core::Error::invalid("a resource without a type or id"));
    }
    if (!r.clientToken.empty() && !tokens[r.type].emplace(r.clientToken, r.id).second) {
      return core::fail(core::Error::invalid(
          fmt::format("{} {} repeats client token {}", r.type, r.id, r.clientToken)));
    }
    std::string type = r.type;
    std::string id = r.id;
    if (!tables[type].emplace(id, std::move(r)).second) {
      return core::fail(core::Error::invalid(fmt::format("{} {} appears twice", type, id)));
    }
  }
  std::lock_guard lock(mu_);
  tables_ = std::move(tables);
  tokens_ = std::move(tokens);
  ids_ = RandomStream(contents.idStream);
  due_.clear();
  for (const auto& [type, table] : tables_) {
    for (const auto& [id, r] : table) {
      scheduleLocked(r);
    }
  }
  ++generation_;
  return core::ok();
}

uint64_t ResourceStore::generation() {
  std::lock_guard lock(mu_);
  return generation_;
}

size_t ResourceStore::liveCount(std::string_view type) {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  auto table = tables_.find(type);
  if (table == tables_.end()) {
    return 0;
  }
  return std::count_if(table->second.begin(), table->second.end(),
                       [](const auto& entry) { return entry.second.live(); });
}

std::map<std::string, size_t> ResourceStore::liveCounts() {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  std::map<std::string, size_t> out;
  for (const auto& [type, table] : tables_) {
    out[type] = std::count_if(table.begin(), table.end(),
                              [](const auto& entry) { return entry.second.live(); });
  }
  return out;
}

std::map<std::string, size_t> ResourceStore::retainedCounts() {
  std::lock_guard lock(mu_);
  advanceLocked(clock_.now());
  std::map<std::string, size_t> out;
  for (const auto& [type, table] : tables_) {
    out[type] = std::count_if(table.begin(), table.end(),
                              [](const auto& entry) { return !entry.second.live(); });
  }
  return out;
}

void ResourceStore::advanceLocked(core::TimePoint now) {
  // Applying one step may schedule the next (terminated, then removal), possibly also due;
  // the set keeps them in time order, so the loop takes them in turn.
  while (!due_.empty() && std::get<0>(*due_.begin()) <= now) {
    auto [at, type, id] = *due_.begin();
    due_.erase(due_.begin());
    auto table = tables_.find(type);
    NW_CHECK(table != tables_.end());
    auto it = table->second.find(id);
    NW_CHECK(it != table->second.end());
    Resource& r = it->second;
    if (r.next && r.next->at == at) {
      Transition t = std::move(*r.next);
      r.next.reset();
      r.state = std::move(t.to);
      if (t.keepFor) {
        r.deleted = t.at;
        r.expires = t.at + *t.keepFor;
      }
      scheduleLocked(r);
    } else {
      NW_CHECK(r.expires && *r.expires == at);
      eraseLocked(table->second, it);
    }
  }
}

Resource ResourceStore::settleLocked(Resource& r, core::TimePoint now) {
  // A transition already due (zero latency) applies before anyone sees the resource. With no
  // retention that removes it, so the caller gets the final state from a copy.
  Resource snapshot = r;
  const std::string type = r.type;
  advanceLocked(now);  // may invalidate `r`
  if (Resource* current = findLocked(type, snapshot.id)) {
    return *current;
  }
  if (snapshot.next) {
    snapshot.state = snapshot.next->to;
    snapshot.deleted = snapshot.next->at;
    snapshot.expires =
        snapshot.next->at + snapshot.next->keepFor.value_or(decltype(now)::duration{});
    snapshot.next.reset();
  }
  return snapshot;
}

void ResourceStore::scheduleLocked(const Resource& r) {
  if (auto at = dueOf(r)) {
    due_.emplace(*at, r.type, r.id);
  }
}

void ResourceStore::unscheduleLocked(const Resource& r) {
  if (auto at = dueOf(r)) {
    due_.erase(DueKey(*at, r.type, r.id));
  }
}

void ResourceStore::eraseLocked(Table& table, Table::iterator it) {
  const Resource& r = it->second;
  if (!r.clientToken.empty()) {
    auto tokens = tokens_.find(r.type);
    if (tokens != tokens_.end()) {
      tokens->second.erase(r.clientToken);
    }
  }
  table.erase(it);
}

std::string ResourceStore::generateIdLocked(const Table& table, const std::string& prefix,
                                            int digits) {
  NW_CHECK(digits > 0 && digits <= 64);
  static constexpr char kHex[] = "0123456789abcdef";
  for (;;) {
    std::string id = prefix.empty() ? std::string() : prefix + "-";
    uint64_t bits = 0;
    for (int i = 0; i < digits; ++i) {
      if (i % 16 == 0) {
        bits = ids_.next();
      }
      id += kHex[bits & 0xF];
      bits >>= 4;
    }
    if (!table.contains(id)) {
      return id;
    }
  }
}

Resource* ResourceStore::findLocked(std::string_view type, std::string_view id) {
  auto table = tables_.find(type);
  if (table == tables_.end()) {
    return nullptr;
  }
  auto it = table->second.find(id);
  return it == table->second.end() ? nullptr : &it->second;
}

std::optional<core::TimePoint> ResourceStore::dueOf(const Resource& r) {
  if (r.next) {
    return r.next->at;
  }
  return r.expires;
}

}  // namespace nodewright::emulators
