#include "controllers/disruption/static_pools.h"

#include <fmt/format.h>

namespace nodewright::controllers::disruption {

StaticCount staticCount(const ClusterView& view, const std::string& pool) {
  StaticCount count;
  for (const ClaimView& claim : view.claims()) {
    if (claim.pool != pool || claim.deleting) {
      continue;
    }
    ++count.live;
    if (claim.command || claim.unreadableCommand) {
      ++count.disrupting;
    }
  }
  return count;
}

std::optional<int64_t> nodeLimit(const api::karpenter::NodePool& pool) {
  auto it = pool.spec.limits.find("nodes");
  if (it == pool.spec.limits.end()) {
    return std::nullopt;
  }
  return it->second.value();
}

std::optional<std::string> staticReplacementBlocked(const ClusterView& view,
                                                    const api::karpenter::NodePool& pool,
                                                    int64_t startedThisPass) {
  const StaticCount count = staticCount(view, pool.metadata.name);
  const int64_t replicas = pool.spec.replicas.value_or(0);
  if (count.live > replicas) {
    return fmt::format(
        "static nodepool {} has {} nodes for {} replicas: the surplus or a replacement in "
        "flight goes first",
        pool.metadata.name, count.live, replicas);
  }
  if (auto limit = nodeLimit(pool); limit && count.live + startedThisPass + 1 > *limit) {
    return fmt::format("static nodepool {} is at its limit of {} nodes", pool.metadata.name,
                       *limit);
  }
  return std::nullopt;
}

}  // namespace nodewright::controllers::disruption
