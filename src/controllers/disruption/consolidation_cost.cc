#include "controllers/disruption/consolidation_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nodewright::controllers::disruption {
namespace {

constexpr const char* kPodDeletionCost = "controller.kubernetes.io/pod-deletion-cost";

}  // namespace

double evictionCost(const api::corev1::Pod& pod) {
  double cost = 1.0;
  if (auto it = pod.metadata.annotations.find(kPodDeletionCost);
      it != pod.metadata.annotations.end()) {
    const char* first = it->second.c_str();
    char* last = nullptr;
    const double deletionCost = std::strtod(first, &last);
    if (!it->second.empty() && last == first + it->second.size() && std::isfinite(deletionCost)) {
      // The annotation spans int32: its extremes weigh about -15 and +17 pods.
      cost += deletionCost / std::pow(2.0, 27);
    }
  }
  if (pod.spec.priority) {
    cost += static_cast<double>(*pod.spec.priority) / std::pow(2.0, 25);
  }
  return std::clamp(cost, -10.0, 10.0);
}

double lifetimeRemaining(const api::karpenter::NodeClaim& claim, core::TimePoint now) {
  const auto& expireAfter = claim.spec.expireAfter;
  if (!expireAfter || expireAfter->isNever()) {
    return 1.0;
  }
  const double total = std::chrono::duration<double>(expireAfter->value()).count();
  if (total <= 0) {
    return 0.0;
  }
  const double age =
      std::chrono::duration<double>(now - claim.metadata.creationTimestamp.point()).count();
  return std::clamp((total - age) / total, 0.0, 1.0);
}

BalancedScore scoreMove(double savings, double disruption, const PoolTotals& totals, int k) {
  BalancedScore out;
  out.threshold = 1.0 / static_cast<double>(k);
  if (totals.cost <= 0) {
    return out;
  }
  out.savingsFraction = savings / totals.cost;
  if (savings <= 0) {
    return out;
  }
  if (totals.disruption <= 0) {
    out.score = std::numeric_limits<double>::infinity();
    out.approved = true;
    return out;
  }
  out.disruptionFraction = disruption / totals.disruption;
  out.score = out.savingsFraction / out.disruptionFraction;
  out.approved = out.score >= out.threshold;
  return out;
}

}  // namespace nodewright::controllers::disruption
