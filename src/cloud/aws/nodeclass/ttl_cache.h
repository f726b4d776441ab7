#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>

// A map whose entries expire at a steady-clock deadline. Not thread-safe: the owner locks.
namespace nodewright::cloud::aws::nodeclass {

template <class T>
class TtlCache {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // The live value under `key`; an expired one is dropped.
  std::optional<T> get(const std::string& key, TimePoint now) {
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      return std::nullopt;
    }
    if (it->second.first <= now) {
      entries_.erase(it);
      return std::nullopt;
    }
    return it->second.second;
  }

  void put(const std::string& key, T value, TimePoint expires) {
    entries_.insert_or_assign(key, std::make_pair(expires, std::move(value)));
  }

  void clear() { entries_.clear(); }
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, std::pair<TimePoint, T>> entries_;
};

}  // namespace nodewright::cloud::aws::nodeclass
