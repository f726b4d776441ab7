#include "controllers/staticpool/static_controller.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "controllers/disruption/static_pools.h"
#include "controllers/provisioning/nodeclaim_factory.h"
#include "controllers/telemetry/karpenter.h"
#include "core/log.h"

namespace nodewright::controllers::staticpool {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using disruption::ClaimView;
using runtime::Result;

// A claim this process created counts until the cache shows it, or for this long.
constexpr auto kRecentClaimTtl = std::chrono::minutes(1);
// Short of replicas and held by limits.nodes: look again this often, as Karpenter does.
constexpr auto kLimitRecheck = std::chrono::seconds(30);

// Least disruptive first: 0 not launched, 1 empty, 2 with pods, 3 with do-not-disrupt.
int rank(const ClaimView& claim) {
  if (claim.claim->status.providerID.empty()) {
    return 0;
  }
  if (!claim.doNotDisrupt.empty()) {
    return 3;
  }
  return claim.pods.empty() ? 1 : 2;
}

std::vector<runtime::Request> poolOf(const api::Object& object) {
  auto it = object.metadata().labels.find(api::karpenter::kNodePoolLabel);
  if (it == object.metadata().labels.end() || it->second.empty()) {
    return {};
  }
  return {{"", it->second}};
}

}  // namespace

std::vector<const ClaimView*> surplus(const disruption::ClusterView& view, const std::string& pool,
                                      int64_t count, const std::set<std::string>& skip) {
  std::vector<const ClaimView*> choices;
  for (const ClaimView& claim : view.claims()) {
    if (claim.pool == pool && !claim.deleting && !claim.command && !claim.unreadableCommand &&
        !skip.count(claim.claim->metadata.name)) {
      choices.push_back(&claim);
    }
  }
  std::stable_sort(choices.begin(), choices.end(), [](const ClaimView* a, const ClaimView* b) {
    if (rank(*a) != rank(*b)) {
      return rank(*a) < rank(*b);
    }
    if (a->pods.size() != b->pods.size()) {
      return a->pods.size() < b->pods.size();
    }
    // Among equals the oldest, which has the least of its lifetime left (Karpenter weighs
    // rescheduling cost by lifetime remaining).
    const auto& ta = a->claim->metadata.creationTimestamp;
    const auto& tb = b->claim->metadata.creationTimestamp;
    if (ta.point() != tb.point()) {
      return ta.point() < tb.point();
    }
    return a->claim->metadata.name < b->claim->metadata.name;
  });
  if (count < static_cast<int64_t>(choices.size())) {
    choices.resize(static_cast<size_t>(std::max<int64_t>(count, 0)));
  }
  return choices;
}

StaticController::StaticController(kube::Client& client, const core::Clock& clock,
                                   runtime::EventRecorder* events, runtime::Registry& metrics,
                                   Options options)
    : claims_(client),
      clock_(clock),
      events_(events),
      options_(std::move(options)),
      created_(telemetry::nodeClaimsCreated(metrics)) {}

runtime::Controller& StaticController::setup(runtime::Manager& manager) {
  caches_.pods = &manager.informerFor<api::corev1::Pod>().cache();
  caches_.nodes = &manager.informerFor<api::corev1::Node>().cache();
  caches_.nodeClaims = &manager.informerFor<NodeClaim>().cache();
  caches_.nodePools = &manager.informerFor<NodePool>().cache();
  caches_.daemonSets = &manager.informerFor<api::corev1::DaemonSet>().cache();
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = 4;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  controller.watchFor(manager.informerFor<NodePool>());
  controller.watchMapped(manager.informerFor<NodeClaim>(), poolOf);
  return controller;
}

runtime::Outcome StaticController::reconcile(const runtime::Request& request,
                                             runtime::Context& context) {
  auto decision = converge(caches_, request.name, context);
  if (!decision) {
    return core::fail(decision.error());
  }
  if (decision->replicas == 0 && decision->live == 0 && decision->created.empty()) {
    return Result::done();
  }
  return Result::after(decision->atLimit ? std::chrono::seconds(kLimitRecheck) : options_.resync);
}

int64_t StaticController::unseen(const disruption::ClusterView& view, const std::string& pool) {
  std::lock_guard lock(mu_);
  auto it = recent_.find(pool);
  if (it == recent_.end()) {
    return 0;
  }
  const auto now = clock_.steadyNow();
  std::erase_if(it->second, [&](const auto& entry) {
    return now - entry.second > kRecentClaimTtl || view.claim(entry.first) != nullptr;
  });
  return static_cast<int64_t>(it->second.size());
}

std::set<std::string> StaticController::unseenDeletes(const disruption::ClusterView& view) {
  std::lock_guard lock(mu_);
  const auto now = clock_.steadyNow();
  std::erase_if(deleted_, [&](const auto& entry) {
    const ClaimView* claim = view.claim(entry.first);
    return now - entry.second > kRecentClaimTtl || claim == nullptr || claim->deleting;
  });
  std::set<std::string> out;
  for (const auto& [name, at] : deleted_) {
    out.insert(name);
  }
  return out;
}

void StaticController::rememberDelete(const std::string& claim) {
  std::lock_guard lock(mu_);
  deleted_[claim] = clock_.steadyNow();
}

void StaticController::remember(const std::string& pool, const std::string& claim) {
  std::lock_guard lock(mu_);
  recent_[pool][claim] = clock_.steadyNow();
}

core::Result<Decision> StaticController::converge(const provisioning::ClusterCaches& caches,
                                                  const std::string& poolName,
                                                  runtime::Context& context) {
  Decision decision;
  auto cached = caches.nodePools->get(poolName);
  const NodePool* pool = cached ? cached->as<NodePool>() : nullptr;
  if (pool == nullptr || !api::karpenter::isStatic(*pool) || pool->metadata.deletionTimestamp) {
    return decision;
  }
  const disruption::ClusterView view(caches);
  disruption::StaticCount count = disruption::staticCount(view, poolName);
  const std::set<std::string> deleting = unseenDeletes(view);
  for (const std::string& name : deleting) {
    if (const ClaimView* claim = view.claim(name); claim != nullptr && claim->pool == poolName) {
      --count.live;
      if (claim->command || claim->unreadableCommand) {
        --count.disrupting;
      }
    }
  }
  decision.replicas = *pool->spec.replicas;
  decision.live = count.forProvisioning() + unseen(view, poolName);

  if (decision.live < decision.replicas) {
    int64_t wanted = decision.replicas - decision.live;
    if (auto limit = disruption::nodeLimit(*pool)) {
      wanted = std::min(wanted, *limit - decision.live);
    }
    if (wanted <= 0) {
      decision.atLimit = true;
      core::logInfo(
          context.log(), "nodepool node limit reached",
          {{"nodepool", poolName}, {"nodes", decision.live}, {"replicas", decision.replicas}});
      return decision;
    }
    core::logInfo(context.log(), "provisioning nodeclaims to satisfy replica count",
                  {{"nodepool", poolName},
                   {"current", decision.live},
                   {"desired", decision.replicas},
                   {"provision-count", wanted}});
    for (int64_t i = 0; i < wanted && context.leading() && !context.cancelled(); ++i) {
      auto created = claims_.create(provisioning::makeStaticNodeClaim(*pool, options_.hashPolicy));
      if (!created) {
        return core::fail(
            created.error().toError().wrap("creating a nodeclaim of static nodepool " + poolName));
      }
      remember(poolName, created->metadata.name);
      created_.with({"provisioning", poolName, "false"}).inc();
      decision.created.push_back(created->metadata.name);
    }
    decision.atLimit = decision.live + wanted < decision.replicas;
    return decision;
  }

  // A candidate being replaced by disruption makes room for its replacement: not surplus.
  const int64_t over = count.forDeprovisioning() - decision.replicas;
  if (over <= 0) {
    return decision;
  }
  core::logInfo(context.log(), "deprovisioning nodeclaims to satisfy replica count",
                {{"nodepool", poolName},
                 {"current", count.forDeprovisioning()},
                 {"desired", decision.replicas},
                 {"deprovision-count", over}});
  for (const ClaimView* claim : surplus(view, poolName, over, deleting)) {
    if (!context.leading() || context.cancelled()) {
      break;
    }
    const std::string& name = claim->claim->metadata.name;
    auto removed = claims_.remove("", name);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return core::fail(removed.error().toError().wrap("deleting nodeclaim " + name));
    }
    rememberDelete(name);
    decision.deleted.push_back(name);
    if (events_ != nullptr) {
      events_->event(*cached, runtime::EventType::Normal, "Overprovisioned",
                     fmt::format("Deleting NodeClaim {}: the static NodePool has {} nodes for {} "
                                 "replicas",
                                 name, count.forDeprovisioning(), decision.replicas));
    }
  }
  return decision;
}

}  // namespace nodewright::controllers::staticpool
