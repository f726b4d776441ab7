#include "cloud/drift.h"

namespace nodewright::cloud {

std::string describe(const DriftCheck& check) {
  if (check.changes.empty()) {
    return check.detail;
  }
  std::string out;
  for (const auto& change : check.changes) {
    if (!out.empty()) {
      out += "; ";
    }
    out += api::reflect::describe(change);
  }
  return out;
}

std::optional<std::vector<api::reflect::FieldDiff>> DiffMemo::find(
    const std::string& snapshot) const {
  std::lock_guard lock(mu_);
  auto it = diffs_.find(snapshot);
  if (it == diffs_.end()) {
    return std::nullopt;
  }
  return it->second;
}

void DiffMemo::insert(const std::string& snapshot,
                      const std::vector<api::reflect::FieldDiff>& diff) {
  std::lock_guard lock(mu_);
  if (diffs_.size() < kCapacity) {
    diffs_.emplace(snapshot, diff);
  }
}

const DriftCheck* firstDrift(const std::vector<DriftCheck>& checks) {
  for (const auto& check : checks) {
    if (check.drifted) {
      return &check;
    }
  }
  return nullptr;
}

}  // namespace nodewright::cloud
