#include "emulators/kubelet/expectations.h"

namespace nodewright::emulators::kubelet {

Expectations::Expectations(const core::Clock& clock, std::chrono::nanoseconds ttl)
    : clock_(clock), ttl_(ttl) {}

void Expectations::created(const std::string& owner, const std::string& name,
                           const std::string& tag) {
  std::lock_guard lock(mu_);
  owners_[owner].creating[name] = {tag, clock_.now()};
}

void Expectations::deleted(const std::string& owner, const std::string& name) {
  std::lock_guard lock(mu_);
  owners_[owner].deleting[name] = clock_.now();
}

void Expectations::forget(const std::string& owner) {
  std::lock_guard lock(mu_);
  owners_.erase(owner);
}

Expectations::Pending Expectations::settle(const std::string& owner,
                                           const std::map<std::string, bool>& cached) {
  std::lock_guard lock(mu_);
  Pending pending;
  auto it = owners_.find(owner);
  if (it == owners_.end()) {
    return pending;
  }
  const core::TimePoint now = clock_.now();
  Entry& entry = it->second;
  std::erase_if(entry.creating, [&](const auto& e) {
    return cached.contains(e.first) || now - e.second.second > ttl_;
  });
  std::erase_if(entry.deleting, [&](const auto& e) {
    auto c = cached.find(e.first);
    return c == cached.end() || !c->second || now - e.second > ttl_;
  });
  for (const auto& [name, value] : entry.creating) {
    pending.creating.emplace(name, value.first);
  }
  for (const auto& [name, at] : entry.deleting) {
    pending.deleting.insert(name);
  }
  if (entry.creating.empty() && entry.deleting.empty()) {
    owners_.erase(it);
  }
  return pending;
}

}  // namespace nodewright::emulators::kubelet
