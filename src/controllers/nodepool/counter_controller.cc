#include "controllers/nodepool/counter_controller.h"

#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/well_known.h"
#include "controllers/nodepool/restamp.h"

namespace nodewright::controllers::nodepool {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using runtime::Outcome;
using runtime::Result;

// Karpenter's BaseResources: a pool with no nodes still reports these, at zero.
constexpr const char* kBaseResources[] = {"cpu", "memory", "pods", "ephemeral-storage", "nodes"};
constexpr const char* kNodesResource = "nodes";

bool counts(const NodeClaim& claim) {
  if (claim.metadata.deletionTimestamp) {
    return false;
  }
  for (const auto& condition : claim.status.conditions) {
    if (condition.type == api::karpenter::kLaunched) {
      return condition.status == "True";
    }
  }
  return false;
}

std::vector<runtime::Request> poolOf(const api::Object& object) {
  auto it = object.metadata().labels.find(api::karpenter::kNodePoolLabel);
  if (it == object.metadata().labels.end() || it->second.empty()) {
    return {};
  }
  return {{"", it->second}};
}

}  // namespace

void addNodePoolIndex(kube::Informer& nodeClaims) {
  nodeClaims.addIndex(kByNodePool, [](const api::Object& object) {
    std::vector<std::string> values;
    for (const auto& request : poolOf(object)) {
      values.push_back(request.name);
    }
    return values;
  });
}

PoolUsage usageOf(const std::vector<api::Object>& claims) {
  PoolUsage usage;
  for (const char* name : kBaseResources) {
    usage.resources[name] = core::Quantity();
  }
  for (const api::Object& object : claims) {
    const auto* claim = object.as<NodeClaim>();
    if (claim == nullptr || !counts(*claim)) {
      continue;
    }
    for (const auto& [name, quantity] : claim->status.capacity) {
      usage.resources[name] += quantity;
    }
    ++usage.nodes;
  }
  usage.resources[kNodesResource] = core::Quantity::fromInt(usage.nodes);
  return usage;
}

bool reports(const api::karpenter::NodePoolStatus& status, const PoolUsage& usage) {
  return status.resources == usage.resources && status.nodes == usage.nodes;
}

CounterController::CounterController(kube::Client& client, const kube::Cache& pools,
                                     const kube::Cache& claims)
    : client_(client), pools_(pools), claims_(claims) {}

Outcome CounterController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto cached = pools_.get(request.name);
  const NodePool* pool = cached ? cached->as<NodePool>() : nullptr;
  if (pool == nullptr) {
    return Result::done();
  }
  const PoolUsage usage = usageOf(claims_.byIndex(kByNodePool, request.name));
  if (reports(pool->status, usage)) {
    return Result::done();
  }
  auto written =
      kube::updateStatusWithRetry(client_, kube::kindOf<NodePool>(client_.registry()), "",
                                  request.name, [&](api::Object& object) {
                                    NodePool* stored = object.as<NodePool>();
                                    if (reports(stored->status, usage) || !context.leading()) {
                                      return false;
                                    }
                                    stored->status.resources = usage.resources;
                                    stored->status.nodes = usage.nodes;
                                    return true;
                                  });
  if (!written) {
    if (written.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return apiFailure(written.error(), "writing the status of NodePool " + request.name);
  }
  return Result::done();
}

runtime::Controller& CounterController::setup(runtime::Manager& manager) {
  kube::Informer& claims = manager.informerFor<NodeClaim>();
  addNodePoolIndex(claims);
  runtime::ControllerOptions options;
  options.workers = 10;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(manager.informerFor<NodePool>());
  controller.watchMapped(claims, poolOf);
  return controller;
}

}  // namespace nodewright::controllers::nodepool
