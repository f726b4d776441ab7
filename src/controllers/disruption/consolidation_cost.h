#pragma once

#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "core/time.h"

// What consolidation weighs: how much disrupting pods and nodes costs (the order candidates are
// tried in) and, under the Balanced policy, whether a move saves enough for what it disrupts.
// The formulas are Karpenter's (pkg/utils/disruption, pkg/controllers/disruption/balanced.go).
namespace nodewright::controllers::disruption {

// Balanced approves a move at score >= 1/k; upstream's default k.
inline constexpr int kBalancedThreshold = 2;

// Evicting one pod: 1, plus its controller.kubernetes.io/pod-deletion-cost over 2^27 and its
// priority over 2^25, clamped to [-10, 10]. An unreadable deletion cost counts as none.
double evictionCost(const api::corev1::Pod& pod);

// The fraction of the claim's expireAfter still ahead of it, in [0, 1]; 1 without expiry. A node
// near its end costs little to disrupt: it goes soon anyway.
double lifetimeRemaining(const api::karpenter::NodeClaim& claim, core::TimePoint now);

// A NodePool's totals that Balanced normalizes a move against: the price of its priced
// candidates, and their disruption (1 per node plus each pod's eviction cost, never negative).
struct PoolTotals {
  double cost = 0;
  double disruption = 0;
};

struct BalancedScore {
  double score = 0;
  double savingsFraction = 0;
  double disruptionFraction = 0;
  double threshold = 0;  // 1/k
  bool approved = false;
};

// score = (savings / totals.cost) / (disruption / totals.disruption), approved at >= 1/k.
// Nothing saved is never approved; a pool with no disruption cost approves any saving.
BalancedScore scoreMove(double savings, double disruption, const PoolTotals& totals,
                        int k = kBalancedThreshold);

}  // namespace nodewright::controllers::disruption
