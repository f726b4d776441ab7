#include "controllers/disruption/replacements.h"

#include <fmt/format.h>

#include "controllers/provisioning/nodeclaim_factory.h"

namespace nodewright::controllers::disruption {

core::Result<Simulation> simulate(const provisioning::ClusterCaches& caches,
                                  const provisioning::DisruptionScope& scope,
                                  cloud::CloudProvider& cloud,
                                  const api::karpenter::HashPolicy& policy) {
  provisioning::ClusterSnapshot snapshot(caches, provisioning::PendingRule::Unbound, {}, &scope);
  Simulation out;
  out.pods = snapshot.pendingPods().size();
  if (out.pods == 0) {
    return out;
  }
  std::map<std::string, std::vector<cloud::InstanceType>> typesByPool;
  for (const auto& [name, pool] : snapshot.nodePools()) {
    if (api::karpenter::isStatic(*pool)) {
      continue;  // no destination: pods never grow a static pool
    }
    // A pool that cannot offer types now (its node class missing, say) is no destination; the
    // others still are, as in the provisioner.
    auto types = cloud.instanceTypes(*pool);
    if (!types) {
      continue;
    }
    typesByPool[name] = std::move(types->compatible);
  }
  const auto results = provisioning::scheduling::schedule(snapshot.input(typesByPool));
  out.onExisting = results.existingNodes.size();
  out.unschedulable = results.errors;
  for (const auto& planned : results.newNodeClaims) {
    auto pool = snapshot.nodePools().find(planned.nodePool);
    if (pool == snapshot.nodePools().end()) {
      continue;
    }
    out.replacements.push_back(provisioning::makeNodeClaim(*pool->second, planned, policy));
    const std::string cheapest =
        planned.instanceTypes.empty() ? std::string("?") : planned.instanceTypes.front();
    out.summaries.push_back(fmt::format("{} for {} pods (cheapest {}, ${:.4f}/h)", planned.nodePool,
                                        planned.pods.size(), cheapest, planned.cheapestPrice));
  }
  return out;
}

}  // namespace nodewright::controllers::disruption
