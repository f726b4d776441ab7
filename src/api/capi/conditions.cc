#include "api/capi/conditions.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace nodewright::api::capi {
namespace {

bool sameState(const CapiCondition& a, const CapiCondition& b) {
  return a.status == b.status && a.reason == b.reason && a.severity == b.severity &&
         a.message == b.message;
}

bool orderedBefore(const CapiCondition& a, const CapiCondition& b) {
  const bool aReady = a.type == kReadyCondition;
  const bool bReady = b.type == kReadyCondition;
  if (aReady != bReady) {
    return aReady;
  }
  return a.type < b.type;
}

}  // namespace

void setCondition(Conditions& conditions, CapiCondition condition, core::Time now) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const CapiCondition& c) { return c.type == condition.type; });
  if (it != conditions.end() && sameState(*it, condition)) {
    return;
  }
  condition.lastTransitionTime = core::Time(std::chrono::floor<std::chrono::seconds>(now.point()));
  if (it != conditions.end()) {
    *it = std::move(condition);
  } else {
    conditions.push_back(std::move(condition));
  }
  std::stable_sort(conditions.begin(), conditions.end(), orderedBefore);
}

void markTrue(Conditions& conditions, std::string_view type, core::Time now) {
  CapiCondition condition;
  condition.type = std::string(type);
  condition.status = "True";
  setCondition(conditions, std::move(condition), now);
}

void markFalse(Conditions& conditions, std::string_view type, std::string_view reason,
               std::string_view severity, std::string message, core::Time now) {
  CapiCondition condition;
  condition.type = std::string(type);
  condition.status = "False";
  condition.reason = std::string(reason);
  condition.severity = std::string(severity);
  condition.message = std::move(message);
  setCondition(conditions, std::move(condition), now);
}

const CapiCondition* findCondition(const Conditions& conditions, std::string_view type) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const CapiCondition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

bool isTrue(const Conditions& conditions, std::string_view type) {
  const CapiCondition* condition = findCondition(conditions, type);
  return condition != nullptr && condition->status == "True";
}

}  // namespace nodewright::api::capi
