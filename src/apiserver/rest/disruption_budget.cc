#include "apiserver/rest/disruption_budget.h"

#include <cmath>

#include "api/codec.h"
#include "api/labels.h"
#include "apiserver/rest/object_meta.h"

namespace nodewright::apiserver::rest {
namespace {

using api::Json;

// minAvailable / maxUnavailable as a count of `expected` (percentages round up, as upstream).
int64_t scaled(const Json& value, int64_t expected) {
  if (value.is_number_integer()) {
    return value.get<int64_t>();
  }
  if (!value.is_string()) {
    return 0;
  }
  std::string text = value.get<std::string>();
  if (!text.empty() && text.back() == '%') {
    double percent = std::atof(text.substr(0, text.size() - 1).c_str());
    return static_cast<int64_t>(std::ceil(percent * static_cast<double>(expected) / 100.0));
  }
  return std::atoll(text.c_str());
}

const Json& specOf(const Json& pdb) {
  static const Json empty = Json::object();
  auto it = pdb.find("spec");
  return it != pdb.end() && it->is_object() ? *it : empty;
}

}  // namespace

bool budgetSelects(const Json& pdb, const Json& pod) {
  auto selector = specOf(pdb).find("selector");
  if (selector == specOf(pdb).end() || selector->is_null()) {
    return false;
  }
  api::LabelSelector parsed;
  if (!api::decodeJson(*selector, parsed).empty()) {
    return false;
  }
  return meta::namespaceOf(pdb) == meta::namespaceOf(pod) &&
         api::matches(parsed, meta::labels(pod));
}

bool podHealthy(const Json& pod) {
  if (meta::deletionPending(pod)) {
    return false;
  }
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) {
    return false;
  }
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) {
    return false;
  }
  for (const auto& c : *conditions) {
    if (c.value("type", "") == "Ready") {
      return c.value("status", "") == "True";
    }
  }
  return false;
}

BudgetHealth budgetHealth(const Json& pdb, const std::vector<storage::StoredPtr>& pods) {
  BudgetHealth health;
  for (const auto& pod : pods) {
    const Json& object = *pod->object;
    if (meta::deletionPending(object) || !budgetSelects(pdb, object)) {
      continue;
    }
    ++health.expected;
    if (podHealthy(object)) {
      ++health.healthy;
    }
  }
  const Json& spec = specOf(pdb);
  if (spec.contains("minAvailable")) {
    health.desired = scaled(spec["minAvailable"], health.expected);
  } else {
    health.desired = std::max<int64_t>(
        0, health.expected - scaled(spec.value("maxUnavailable", Json(0)), health.expected));
  }
  return health;
}

bool evictionAllowed(const Json& pdb, const BudgetHealth& health, const Json& pod) {
  if (podHealthy(pod)) {
    return health.allowed() > 0;
  }
  // An unhealthy pod does not lower the healthy count; upstream lets it go when the budget is
  // met (IfHealthyBudget, the default) or always (AlwaysAllow).
  if (specOf(pdb).value("unhealthyPodEvictionPolicy", "") == "AlwaysAllow") {
    return true;
  }
  return health.healthy >= health.desired;
}

Json budgetStatus(const Json& pdb, const BudgetHealth& health, const std::string& now) {
  const int64_t generation = pdb.value("metadata", Json::object()).value("generation", int64_t{0});
  const bool allowed = health.allowed() > 0;
  std::string transition = now;
  const Json previous = pdb.value("status", Json::object());
  for (const auto& c : previous.value("conditions", Json::array())) {
    if (c.value("type", "") == "DisruptionAllowed" &&
        c.value("status", "") == (allowed ? "True" : "False")) {
      transition = c.value("lastTransitionTime", now);
    }
  }
  Json status = {{"observedGeneration", generation},
                 {"disruptionsAllowed", health.allowed()},
                 {"currentHealthy", health.healthy},
                 {"desiredHealthy", health.desired},
                 {"expectedPods", health.expected},
                 {"conditions",
                  {{{"type", "DisruptionAllowed"},
                    {"status", allowed ? "True" : "False"},
                    {"observedGeneration", generation},
                    {"lastTransitionTime", transition},
                    {"reason", allowed ? "SufficientPods" : "InsufficientPods"},
                    {"message", ""}}}}};
  if (previous.contains("disruptedPods")) {
    status["disruptedPods"] = previous["disruptedPods"];
  }
  return status;
}

}  // namespace nodewright::apiserver::rest
