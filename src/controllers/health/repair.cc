#include "controllers/health/repair.h"

#include <fmt/format.h>

namespace nodewright::controllers::health {

using std::chrono::minutes;

std::vector<RepairPolicy> awsRepairPolicies() {
  return {
      {"Ready", "False", minutes(30)},
      {"Ready", "Unknown", minutes(30)},
      {"AcceleratedHardwareReady", "False", minutes(10)},
      {"StorageReady", "False", minutes(30)},
      {"NetworkingReady", "False", minutes(30)},
      {"KernelReady", "False", minutes(30)},
      {"ContainerRuntimeReady", "False", minutes(30)},
  };
}

std::optional<Unhealthy> unhealthyCondition(const api::corev1::Node& node,
                                            const std::vector<RepairPolicy>& policies) {
  std::optional<Unhealthy> earliest;
  for (const RepairPolicy& policy : policies) {
    for (const api::corev1::NodeCondition& c : node.status.conditions) {
      if (c.type != policy.conditionType || c.status != policy.conditionStatus) {
        continue;
      }
      const core::TimePoint since = c.lastTransitionTime.point();
      const core::TimePoint repairAt = since + policy.toleration;
      if (!earliest || repairAt < earliest->repairAt) {
        earliest = Unhealthy{policy, since, repairAt};
      }
    }
  }
  return earliest;
}

size_t allowedUnhealthy(size_t nodes) {
  return (nodes * kAllowedUnhealthyPercent + 99) / 100;
}

bool repairAllowed(size_t unhealthy, size_t nodes) {
  return unhealthy <= allowedUnhealthy(nodes);
}

Decision decide(const api::corev1::Node& node, const std::vector<api::corev1::Node>& poolNodes,
                const std::vector<RepairPolicy>& policies, core::TimePoint now) {
  Decision d;
  d.unhealthy = unhealthyCondition(node, policies);
  if (!d.unhealthy) {
    return d;
  }
  if (now < d.unhealthy->repairAt) {
    d.verdict = Verdict::Tolerated;
    return d;
  }
  size_t unhealthy = 0;
  for (const auto& n : poolNodes) {
    if (unhealthyCondition(n, policies)) {
      ++unhealthy;
    }
  }
  if (!repairAllowed(unhealthy, poolNodes.size())) {
    d.verdict = Verdict::Blocked;
    d.message = fmt::format(
        "{} of {} nodes are unhealthy, more than {}% (up to {} may be); no node is repaired",
        unhealthy, poolNodes.size(), kAllowedUnhealthyPercent, allowedUnhealthy(poolNodes.size()));
    return d;
  }
  d.verdict = Verdict::Repair;
  d.message = fmt::format("{} {} for {}", d.unhealthy->policy.conditionType,
                          d.unhealthy->policy.conditionStatus,
                          std::chrono::duration_cast<minutes>(now - d.unhealthy->since).count()) +
              " minutes";
  return d;
}

}  // namespace nodewright::controllers::health
