#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/storage/store.h"

// PodDisruptionBudget arithmetic, shared by the eviction subresource and the status the
// server's disruption controller keeps (what kube-controller-manager's would write).
namespace nodewright::apiserver::rest {

struct BudgetHealth {
  int64_t expected = 0;  // selected pods that are not terminating
  int64_t healthy = 0;   // of those, Ready
  int64_t desired = 0;   // healthy pods the budget requires
  int64_t allowed() const { return healthy > desired ? healthy - desired : 0; }
};

// policy/v1: a null selector selects nothing, an empty one every pod of the namespace.
bool budgetSelects(const api::Json& pdb, const api::Json& pod);
bool podHealthy(const api::Json& pod);
BudgetHealth budgetHealth(const api::Json& pdb, const std::vector<storage::StoredPtr>& pods);

// Whether evicting `pod` keeps the budget (unhealthyPodEvictionPolicy honoured).
bool evictionAllowed(const api::Json& pdb, const BudgetHealth& health, const api::Json& pod);

// The budget's status for `health`; `previous` keeps unchanged conditions' transition times.
api::Json budgetStatus(const api::Json& pdb, const BudgetHealth& health, const std::string& now);

}  // namespace nodewright::apiserver::rest
