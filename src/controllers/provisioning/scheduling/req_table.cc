#include "controllers/provisioning/scheduling/req_table.h"

namespace nodewright::controllers::provisioning::scheduling {

int ReqTable::intern(const Requirements& reqs) {
  auto [it, inserted] = ids_.emplace(reqs.describe(), static_cast<int>(sets_.size()));
  if (inserted) {
    sets_.push_back(reqs);
    conflicted_.push_back(reqs.conflict().has_value());
  }
  return it->second;
}

int ReqTable::intersect(int a, int b) {
  if (a == b) {
    return a;
  }
  auto it = intersections_.find(pair(a, b));
  if (it != intersections_.end()) {
    return it->second;
  }
  int id = intern(sets_[a].intersect(sets_[b]));
  intersections_.emplace(pair(a, b), id);
  return id;
}

bool ReqTable::compatible(int existing, int incoming) {
  auto [it, inserted] = compatibility_.emplace(pair(existing, incoming), false);
  if (inserted) {
    it->second = !sets_[existing].compatible(sets_[incoming]).has_value();
  }
  return it->second;
}

}  // namespace nodewright::controllers::provisioning::scheduling
