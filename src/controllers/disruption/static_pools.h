#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/karpenter/nodepool.h"
#include "controllers/disruption/candidates.h"

// How a static NodePool (spec.replicas) counts its nodes, shared by the static controller
// (controllers/staticpool) and disruption, so the two never fight: a drifted node is replaced
// one for one from the pool's template, and while its replacement runs the pool is neither
// topped up nor trimmed (Karpenter's NodePoolState: running plus pending disruption).
namespace nodewright::controllers::disruption {

struct StaticCount {
  int64_t live = 0;        // claims not being deleted
  int64_t disrupting = 0;  // of those, the candidates of commands in flight
  // Toward replicas when topping up: every live claim (a candidate still runs).
  int64_t forProvisioning() const { return live; }
  // Toward replicas when trimming: a candidate's replacement takes its place.
  int64_t forDeprovisioning() const { return live - disrupting; }
};
StaticCount staticCount(const ClusterView& view, const std::string& pool);

// spec.limits.nodes as a count, when set.
std::optional<int64_t> nodeLimit(const api::karpenter::NodePool& pool);

// Why a node of static `pool` may not be replaced now, or nullopt: the pool is above its
// replicas (the surplus goes first) or one more node would pass limits.nodes, counting the
// replacements `startedThisPass` that the view cannot show yet.
std::optional<std::string> staticReplacementBlocked(const ClusterView& view,
                                                    const api::karpenter::NodePool& pool,
                                                    int64_t startedThisPass);

}  // namespace nodewright::controllers::disruption
