#include "controllers/provisioning/scheduling/resources.h"

#include <algorithm>
#include <limits>

namespace nodewright::controllers::provisioning::scheduling {
ResourceIndex::ResourceIndex() {
  for (const char* name : {kCpu, kMemory, kPods, kEphemeralStorage}) {
    slot(name);
  }
}

size_t ResourceIndex::slot(const std::string& name) {
  auto [it, inserted] = slots_.emplace(name, names_.size());
  if (inserted) {
    names_.push_back(name);
  }
  return it->second;
}

void ResourceIndex::intern(const cloud::ResourceList& list) {
  for (const auto& [name, q] : list) {
    slot(name);
  }
}

Vec ResourceIndex::vec(const cloud::ResourceList& list) {
  intern(list);
  Vec out(names_.size(), 0);
  for (const auto& [name, q] : list) {
    out[slots_.at(name)] = q.milliValue();
  }
  return out;
}

cloud::ResourceList ResourceIndex::list(const Vec& v) const {
  cloud::ResourceList out;
  for (size_t i = 0; i < v.size() && i < names_.size(); ++i) {
    if (v[i] != 0) {
      bool binary = names_[i] == kMemory || names_[i] == kEphemeralStorage;
      out[names_[i]] = core::Quantity::fromMilli(
          v[i], binary ? core::Quantity::Format::BinarySI : core::Quantity::Format::DecimalSI);
    }
  }
  return out;
}

std::string formatResources(const cloud::ResourceList& list) {
  std::string out = "{";
  for (const auto& [name, q] : list) {
    out += (out.size() > 1 ? ", " : "") + name + ": " + q.toString();
  }
  return out + "}";
}

void addTo(Vec& a, const Vec& b) {
  if (a.size() < b.size()) {
    a.resize(b.size(), 0);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    // Quantities saturate at INT64_MAX milli; a sum must too, or an absurd request (16Pi of
    // memory) wraps negative and fits anywhere.
    if (__builtin_add_overflow(a[i], b[i], &a[i])) {
      a[i] = b[i] > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    }
  }
}

bool fitsWithin(const Vec& a, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > (i < b.size() ? b[i] : 0)) {
      return false;
    }
  }
  return true;
}

}  // namespace nodewright::controllers::provisioning::scheduling
