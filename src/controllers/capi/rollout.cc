#include "controllers/capi/rollout.h"

#include <algorithm>
#include <cstdlib>

namespace nodewright::controllers::capi {
namespace {

int32_t scaled(const std::optional<api::IntOrString>& value, int32_t desired, int32_t fallback,
               bool roundUp) {
  if (!value) {
    return fallback;
  }
  if (!value->isString) {
    return static_cast<int32_t>(std::max<int64_t>(0, value->intValue));
  }
  const std::string& text = value->stringValue;
  if (text.empty() || text.back() != '%') {
    return fallback;
  }
  const int64_t percent = std::strtoll(text.c_str(), nullptr, 10);
  const int64_t numerator = percent * desired;
  return static_cast<int32_t>(roundUp ? (numerator + 99) / 100 : numerator / 100);
}

int32_t sum(const std::vector<int32_t>& values) {
  int32_t total = 0;
  for (int32_t v : values) {
    total += v;
  }
  return total;
}

std::vector<int32_t> planOnDelete(const RolloutInput& input) {
  std::vector<int32_t> old;
  for (const SetState& set : input.oldSets) {
    old.push_back(std::min(set.replicas, set.machines));
  }
  // Scaling down during an OnDelete rollout takes from the old sets first, oldest first.
  int32_t excess = sum(old) - input.desired;
  for (int32_t& replicas : old) {
    if (excess <= 0) {
      break;
    }
    const int32_t cut = std::min(replicas, excess);
    replicas -= cut;
    excess -= cut;
  }
  std::vector<int32_t> plan{std::max(0, input.desired - sum(old))};
  plan.insert(plan.end(), old.begin(), old.end());
  return plan;
}

}  // namespace

Bounds resolveBounds(const std::optional<api::IntOrString>& maxSurge,
                     const std::optional<api::IntOrString>& maxUnavailable, int32_t desired) {
  Bounds bounds;
  bounds.maxSurge = scaled(maxSurge, desired, 1, true);
  bounds.maxUnavailable = std::min(scaled(maxUnavailable, desired, 0, false), desired);
  if (bounds.maxSurge == 0 && bounds.maxUnavailable == 0) {
    bounds.maxUnavailable = 1;
  }
  return bounds;
}

std::vector<int32_t> planRollout(const RolloutInput& input) {
  if (input.onDelete) {
    return planOnDelete(input);
  }
  int32_t newReplicas = input.newSet.replicas;
  std::vector<int32_t> old;
  for (const SetState& set : input.oldSets) {
    old.push_back(set.replicas);
  }

  // Grow the new set within the surge budget (or shrink it to desired when scaled down).
  if (newReplicas > input.desired) {
    newReplicas = input.desired;
  } else if (newReplicas < input.desired) {
    const int32_t room = input.desired + input.maxSurge - (newReplicas + sum(old));
    if (room > 0) {
      newReplicas = std::min(newReplicas + room, input.desired);
    }
  }
  if (old.empty()) {
    return {newReplicas};
  }

  // Shrink the old sets: never below desired - maxUnavailable available machines in total.
  const int32_t minAvailable = input.desired - input.maxUnavailable;
  const int32_t newUnavailable = std::max(0, newReplicas - input.newSet.available);
  const int32_t maxScaledDown = newReplicas + sum(old) - minAvailable - newUnavailable;
  if (maxScaledDown > 0) {
    // First what is not available anyway: removing it costs no availability.
    int32_t cleaned = 0;
    for (size_t i = 0; i < old.size() && cleaned < maxScaledDown; ++i) {
      const int32_t unavailable = std::max(0, old[i] - input.oldSets[i].available);
      const int32_t cut = std::min(unavailable, maxScaledDown - cleaned);
      old[i] -= cut;
      cleaned += cut;
    }
    // Then available machines, as many as the new set's available ones make up for.
    int32_t available = input.newSet.available;
    for (size_t i = 0; i < old.size(); ++i) {
      available += std::min(old[i], input.oldSets[i].available);
    }
    int32_t toScaleDown = available - minAvailable;
    for (size_t i = 0; i < old.size() && toScaleDown > 0; ++i) {
      const int32_t cut = std::min(old[i], toScaleDown);
      old[i] -= cut;
      toScaleDown -= cut;
    }
  }
  std::vector<int32_t> plan{newReplicas};
  plan.insert(plan.end(), old.begin(), old.end());
  return plan;
}

}  // namespace nodewright::controllers::capi
