#include "controllers/disruption/replacements.h"

#include <fmt/format.h>

#include "controllers/provisioning/nodeclaim_factory.h"
#include "controllers/provisioning/pending_pods.h"

namespace nodewright::controllers::disruption {

TypesByPool destinationTypes(const std::map<std::string, const api::karpenter::NodePool*>& pools,
                             cloud::CloudProvider& cloud) {
  TypesByPool out;
  for (const auto& [name, pool] : pools) {
    if (api::karpenter::isStatic(*pool)) {
      continue;  // no destination: pods never grow a static pool
    }
    // A pool that cannot offer types now (its node class missing, say) is no destination; the
    // others still are, as in the provisioner.
    auto types = cloud.instanceTypes(*pool);
    if (!types) {
      continue;
    }
    out[name] = std::move(types->compatible);
  }
  return out;
}

namespace {

Simulation simulateOn(const provisioning::ClusterSnapshot& snapshot, const TypesByPool& types,
                      const api::karpenter::HashPolicy& policy) {
  Simulation out;
  out.pods = snapshot.pendingPods().size();
  if (out.pods == 0) {
    return out;
  }
  const auto results = provisioning::scheduling::schedule(snapshot.input(types));
  out.onExisting = results.existingNodes.size();
  out.unschedulable = results.errors;
  out.moves = results.existingNodes;
  for (const auto& planned : results.newNodeClaims) {
    auto pool = snapshot.nodePools().find(planned.nodePool);
    if (pool == snapshot.nodePools().end()) {
      continue;
    }
    out.replacements.push_back(provisioning::makeNodeClaim(*pool->second, planned, policy));
    const std::string cheapest =
        planned.instanceTypes.empty() ? std::string("?") : planned.instanceTypes.front();
    out.price += planned.cheapestPrice;
    out.summaries.push_back(fmt::format("{} for {} pods (cheapest {}, ${:.4f}/h)", planned.nodePool,
                                        planned.pods.size(), cheapest, planned.cheapestPrice));
    for (const api::corev1::Pod* pod : planned.pods) {
      out.moves[provisioning::podKey(*pod)] =
          fmt::format("a new {} node (cheapest {})", planned.nodePool, cheapest);
    }
  }
  return out;
}

}  // namespace

core::Result<Simulation> simulate(const provisioning::ClusterCaches& caches,
                                  const provisioning::DisruptionScope& scope,
                                  cloud::CloudProvider& cloud,
                                  const api::karpenter::HashPolicy& policy) {
  provisioning::ClusterSnapshot snapshot(caches, provisioning::PendingRule::Unbound, {}, &scope);
  if (snapshot.pendingPods().empty()) {
    return Simulation{};
  }
  return simulateOn(snapshot, destinationTypes(snapshot.nodePools(), cloud), policy);
}

Simulation simulate(const provisioning::ClusterCaches& caches,
                    const provisioning::DisruptionScope& scope, const TypesByPool& types,
                    const api::karpenter::HashPolicy& policy) {
  provisioning::ClusterSnapshot snapshot(caches, provisioning::PendingRule::Unbound, {}, &scope);
  return simulateOn(snapshot, types, policy);
}

}  // namespace nodewright::controllers::disruption
