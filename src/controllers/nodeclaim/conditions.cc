#include "controllers/nodeclaim/conditions.h"

#include <chrono>

namespace nodewright::controllers::nodeclaim {

const api::Condition* findCondition(const std::vector<api::Condition>& conditions,
                                    const std::string& type) {
  for (const auto& condition : conditions) {
    if (condition.type == type) {
      return &condition;
    }
  }
  return nullptr;
}

bool isTrue(const std::vector<api::Condition>& conditions, const std::string& type) {
  const api::Condition* condition = findCondition(conditions, type);
  return condition != nullptr && condition->status == kTrue;
}

void setCondition(std::vector<api::Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  int64_t generation, core::TimePoint now) {
  const core::Time at(std::chrono::floor<std::chrono::seconds>(now));
  for (auto& condition : conditions) {
    if (condition.type != type) {
      continue;
    }
    if (condition.status != status) {
      condition.lastTransitionTime = at;
    }
    condition.status = status;
    condition.reason = reason;
    condition.message = message;
    condition.observedGeneration = generation;
    return;
  }
  api::Condition condition;
  condition.type = type;
  condition.status = status;
  condition.reason = reason;
  condition.message = message;
  condition.observedGeneration = generation;
  condition.lastTransitionTime = at;
  conditions.push_back(std::move(condition));
}

void initConditions(std::vector<api::Condition>& conditions, const std::vector<std::string>& types,
                    int64_t generation, core::TimePoint now) {
  for (const auto& type : types) {
    if (findCondition(conditions, type) == nullptr) {
      setCondition(conditions, type, kUnknown, "AwaitingReconciliation",
                   "object is awaiting reconciliation", generation, now);
    }
  }
}

}  // namespace nodewright::controllers::nodeclaim
