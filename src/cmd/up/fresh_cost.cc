#include "cmd/up/fresh_cost.h"

#include <memory>
#include <sstream>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/well_known.h"
#include "cmd/inspect.h"
#include "controllers/disruption/replacements.h"
#include "kube/cache.h"

namespace nodewright::cmd::up {

core::Result<FreshCost> freshProvisioningCost(const std::string& kubeconfig,
                                              const std::string& nodePool,
                                              const api::Registry& registry) {
  InspectFlags flags;
  flags.kubeconfig = kubeconfig;
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  Context ctx{in, out, err, registry};
  auto opened = Inspection::open(flags, ctx);
  if (!opened) {
    return core::fail(core::Error::internal("opening the cluster: " + err.str()));
  }
  Inspection& inspection = **opened;
  if (auto loaded = inspection.load(); !loaded) {
    return core::fail(loaded.error());
  }
  // From nothing: the pool's NodeClaims offer no room, and its limits are left out. The
  // scheduler charges each new claim the capacity of its largest type against the limits, as
  // upstream; the provisioner recovers from that over several batches as claims launch, but one
  // simulation of a whole pool's pods would leave its later claims no type at all.
  std::vector<api::Object> otherClaims;
  for (const api::Object& object : inspection.caches().nodeClaims->list()) {
    const auto* claim = object.as<api::karpenter::NodeClaim>();
    if (claim == nullptr) {
      continue;
    }
    auto pool = claim->metadata.labels.find(api::karpenter::kNodePoolLabel);
    if (pool == claim->metadata.labels.end() || pool->second != nodePool) {
      otherClaims.push_back(object);
    }
  }
  kube::Cache claims;
  claims.replace(std::move(otherClaims));
  std::vector<api::Object> unlimited;
  for (const api::Object& object : inspection.caches().nodePools->list()) {
    const auto* pool = object.as<api::karpenter::NodePool>();
    if (pool == nullptr || pool->metadata.name != nodePool) {
      unlimited.push_back(object);
      continue;
    }
    auto copy = std::make_shared<api::karpenter::NodePool>(*pool);
    copy->spec.limits.clear();
    unlimited.push_back(api::Object(&object.info(), std::move(copy)));
  }
  kube::Cache pools;
  pools.replace(std::move(unlimited));
  controllers::provisioning::ClusterCaches caches = inspection.caches();
  caches.nodeClaims = &claims;
  caches.nodePools = &pools;

  controllers::provisioning::DisruptionScope scope;
  for (const api::Object& object : inspection.caches().nodes->list()) {
    const auto* node = object.as<api::corev1::Node>();
    if (node == nullptr) {
      continue;
    }
    auto pool = node->metadata.labels.find(api::karpenter::kNodePoolLabel);
    if (pool != node->metadata.labels.end() && pool->second == nodePool) {
      scope.nodes.insert(node->metadata.name);
    }
  }
  auto simulation = controllers::disruption::simulate(
      caches, scope, inspection.cloud(), api::karpenter::defaultHashPolicy());
  if (!simulation) {
    return core::fail(simulation.error());
  }
  if (!simulation->unschedulable.empty()) {
    const auto& [pod, why] = *simulation->unschedulable.begin();
    return core::fail(core::Error::internal("pod " + pod + " fits nowhere: " + why));
  }
  FreshCost cost;
  cost.perHour = simulation->price;
  cost.pods = simulation->pods;
  cost.onOtherNodes = simulation->onExisting;
  cost.summaries = simulation->summaries;
  return cost;
}

}  // namespace nodewright::cmd::up
