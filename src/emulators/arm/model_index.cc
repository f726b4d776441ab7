// What sits in what and what references what, so that a delete looks at the resources it
// concerns rather than at whole tables. The indexes only grow on writes; deletions complete on
// the clock without the model seeing them, so every lookup checks its entries against the store
// and drops those that are gone, and a sweep every few thousand writes drops the rest.
#include <algorithm>

#include <fmt/format.h>

#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

constexpr size_t kSweepEvery = 4096;

std::string inUseMessage(const ResourceType& type, const std::string& name, const std::string& id,
                         const std::string& user) {
  if (type.leaf() == "subnets") {
    return fmt::format(
        "Subnet {} is in use by {} and cannot be deleted. In order to delete the "
        "subnet, delete all the resources within the subnet. See "
        "aka.ms/deletesubnet.",
        name, user);
  }
  return fmt::format(
      "Resource {} is in use by {} and cannot be deleted. Dissociate it from "
      "that resource first.",
      id, user);
}

bool references(const ArmResource& user, const std::string& key) {
  return std::find(user.refs.begin(), user.refs.end(), key) != user.refs.end();
}

}  // namespace

void ArmModel::index(const Prepared& item) {
  const ArmModel::Entry entry(item.path.type->key(), item.path.key());
  children_[item.resource->parentKey].insert(entry);
  for (const std::string& ref : item.resource->refs) {
    users_[ref].insert(entry);
  }
  if (++indexedSinceSweep_ >= kSweepEvery) {
    sweepIndex();
  }
}

std::vector<Resource> ArmModel::childrenOf(const std::string& key) {
  std::vector<Resource> out;
  auto found = children_.find(key);
  if (found == children_.end()) {
    return out;
  }
  for (auto it = found->second.begin(); it != found->second.end();) {
    auto r = engine_.store().get(it->first, it->second);
    if (!r || !r->live()) {
      it = found->second.erase(it);
      continue;
    }
    out.push_back(std::move(*r));
    ++it;
  }
  if (found->second.empty()) {
    children_.erase(found);
  }
  return out;
}

std::vector<Resource> ArmModel::descendants(const std::string& key) {
  std::vector<Resource> out;
  std::vector<std::string> pending{key};
  while (!pending.empty()) {
    const std::string parent = std::move(pending.back());
    pending.pop_back();
    for (Resource& r : childrenOf(parent)) {
      pending.push_back(r.id);
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<Resource> ArmModel::usersOf(const std::string& key) {
  std::vector<Resource> out;
  auto found = users_.find(key);
  if (found == users_.end()) {
    return out;
  }
  for (auto it = found->second.begin(); it != found->second.end();) {
    auto r = engine_.store().get(it->first, it->second);
    // An update may have dropped the reference; a later one that restores it indexes it again.
    if (!r || !r->live() || !references(data(*r), key)) {
      it = found->second.erase(it);
      continue;
    }
    out.push_back(std::move(*r));
    ++it;
  }
  if (found->second.empty()) {
    users_.erase(found);
  }
  return out;
}

ArmResult<void> ArmModel::checkNotInUse(const std::vector<Resource>& doomed) {
  std::set<std::string> keys;
  for (const Resource& r : doomed) {
    keys.insert(r.id);
  }
  for (const Resource& target : doomed) {
    for (const Resource& user : usersOf(target.id)) {
      // Users going too (a group's NIC of the group's subnet) do not hold it.
      if (user.state == "Deleting" || keys.contains(user.id)) {
        continue;
      }
      const ArmResource& used = data(target);
      return armFail(400, used.type->inUseCode,
                     inUseMessage(*used.type, used.body.value("name", ""), used.id, data(user).id));
    }
  }
  return {};
}

void ArmModel::sweepIndex() {
  indexedSinceSweep_ = 0;
  auto sweep = [&](std::map<std::string, std::set<Entry>>& index, bool byReference) {
    for (auto group = index.begin(); group != index.end();) {
      for (auto it = group->second.begin(); it != group->second.end();) {
        auto r = engine_.store().get(it->first, it->second);
        const bool stale = !r || !r->live() || (byReference && !references(data(*r), group->first));
        it = stale ? group->second.erase(it) : std::next(it);
      }
      group = group->second.empty() ? index.erase(group) : std::next(group);
    }
  };
  sweep(children_, false);
  sweep(users_, true);
}

}  // namespace nodewright::emulators::arm
