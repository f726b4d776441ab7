#include "controllers/nodepool/hash_controller.h"

#include "api/karpenter/well_known.h"
#include "controllers/nodepool/restamp.h"
#include "core/log.h"

namespace nodewright::controllers::nodepool {
namespace {

using api::karpenter::NodePool;
using runtime::Outcome;
using runtime::Result;

constexpr HashAnnotations kKeys{api::karpenter::kNodePoolHashAnnotation,
                                api::karpenter::kNodePoolHashVersionAnnotation};

std::string versionOf(const NodePool& pool) {
  auto it = pool.metadata.annotations.find(kKeys.version);
  return it == pool.metadata.annotations.end() ? "" : it->second;
}

}  // namespace

HashController::HashController(kube::Client& client, const kube::Cache& pools,
                               api::karpenter::HashPolicy policy)
    : client_(client), nodeClaims_(client), pools_(pools), policy_(std::move(policy)) {}

Outcome HashController::reconcile(const runtime::Request& request, runtime::Context& context) {
  // The cache, not a GET: most events are this controller's own writes and need nothing.
  auto cached = pools_.get(request.name);
  const NodePool* pool = cached ? cached->as<NodePool>() : nullptr;
  if (pool == nullptr) {
    return Result::done();
  }
  if (versionOf(*pool) != policy_.version) {
    if (auto stop = restampClaims(*pool, context)) {
      return *stop;
    }
  }
  if (stamped(pool->metadata.annotations, kKeys, api::karpenter::nodePoolHash(*pool, policy_),
              policy_.version)) {
    return Result::done();
  }
  auto written = annotateOwner<NodePool>(
      client_, request.name, kKeys,
      [this](const NodePool& p) { return api::karpenter::nodePoolHash(p, policy_); },
      policy_.version, context);
  if (!written) {
    return apiFailure(written.error(), "annotating NodePool " + request.name);
  }
  return Result::done();
}

// Claims are listed from the server, not the cache: a claim the cache has not seen must not
// keep an old version once the pool's moves on. Only a version change pays for it.
std::optional<Outcome> HashController::restampClaims(const NodePool& pool,
                                                     runtime::Context& context) {
  const std::string& name = pool.metadata.name;
  kube::ListOptions options;
  options.labelSelector = std::string(api::karpenter::kNodePoolLabel) + "=" + name;
  auto claims = nodeClaims_.list("", options);
  if (!claims) {
    return apiFailure(claims.error(), "listing the NodeClaims of NodePool " + name);
  }
  // The pool as cached: if its spec changed since, claims stamped with the older hash drift,
  // as they should; stamping a newer spec onto them would hide that.
  auto result = nodepool::restampClaims(
      client_, *claims, kKeys, policy_.version,
      [&](auto& annotations) { api::karpenter::stampNodePool(pool, policy_, annotations); },
      context);
  if (!result) {
    return core::fail(result.error().wrap("re-stamping the NodeClaims of NodePool " + name));
  }
  if (result->deposed) {
    return Result::done();
  }
  if (!result->restamped.empty()) {
    core::logInfo(context.log(), "re-stamped nodeclaims",
                  {{"nodepool", name},
                   {"from-version", versionOf(pool).empty() ? "none" : versionOf(pool)},
                   {"to-version", policy_.version},
                   {"count", result->restamped.size()}});
  }
  return std::nullopt;
}

runtime::Controller& HashController::setup(runtime::Manager& manager) {
  runtime::ControllerOptions options;
  options.workers = 10;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(manager.informerFor<NodePool>());
  return controller;
}

}  // namespace nodewright::controllers::nodepool
