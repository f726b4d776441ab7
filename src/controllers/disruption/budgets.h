#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/karpenter/nodepool.h"
#include "core/error.h"
#include "core/time.h"

// NodePool disruption budgets (spec.disruption.budgets): how many of a pool's nodes may be
// disrupting at once, per reason. A budget applies to a reason when its reasons list is empty
// or names it, and is active always when it has no schedule, else during `duration` after each
// hit of its cron schedule (UTC). The most restrictive active applicable budget wins. With none
// active, disruption for that reason is not limited by budgets (Karpenter), unless a closed one
// would allow some when open: that is a maintenance window, and outside every maintenance window
// nothing is disrupted for the reason. A window with nodes "0" (a freeze) keeps Karpenter's
// meaning: closed, it limits nothing.
namespace nodewright::controllers::disruption {

// Disruption reasons, as budgets and metrics name them.
inline constexpr const char* kReasonDrifted = "Drifted";
inline constexpr const char* kReasonEmpty = "Empty";
inline constexpr const char* kReasonUnderutilized = "Underutilized";
// Expiry is forceful in Karpenter v1: no budget names it, and only budgets with no reasons
// (all reasons) apply to it.
inline constexpr const char* kReasonExpired = "Expired";

struct BudgetVerdict {
  // How many nodes may be disrupting at once for the reason: the winning budget's nodes, a
  // percentage of `totalNodes` rounded up, as Karpenter rounds it. Unlimited: totalNodes.
  int allowed = 0;
  // Index into spec.disruption.budgets of the winning budget; nullopt when none is active.
  std::optional<size_t> budget;
  // "budgets[1] (nodes 20% of 10 = 2, schedule \"0 9 * * 1-5\" for 8h)", "budgets[0] is
  // outside its window: none active".
  std::string description;
};

// An error names the budget's field path ("spec.disruption.budgets[1].schedule: ...") when a
// budget cannot be read; callers treat that pool as allowing no disruption.
core::Result<BudgetVerdict> allowedDisruptions(const api::karpenter::Disruption& disruption,
                                               std::string_view reason, int totalNodes,
                                               core::TimePoint now);

}  // namespace nodewright::controllers::disruption
