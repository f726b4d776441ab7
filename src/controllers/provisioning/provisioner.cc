#include "controllers/provisioning/provisioner.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cloud/exclusions.h"
#include "controllers/provisioning/nodeclaim_factory.h"
#include "controllers/telemetry/karpenter.h"
#include "core/log.h"

namespace nodewright::controllers::provisioning {
namespace {

using api::karpenter::NodeClaim;
using runtime::Result;

// A claim this process created counts until the cache shows it; after this it is the
// cache's word (a claim deleted at once must not count forever).
constexpr auto kRecentClaimTtl = std::chrono::minutes(1);

}  // namespace

Provisioner::Provisioner(kube::Client& client, cloud::CloudProvider& cloud,
                         const core::Clock& clock, runtime::EventRecorder* events,
                         runtime::Registry& metrics, ProvisionerOptions options)
    : nodeClaims_(client),
      cloud_(cloud),
      clock_(clock),
      events_(events),
      options_(options),
      batcher_(clock, options.batch),
      schedulingSeconds_(metrics.histogram(
          "karpenter_scheduler_scheduling_duration_seconds",
          "Duration of scheduling simulations used for deprovisioning and provisioning in "
          "seconds.",
          {"controller"}, telemetry::durationBuckets())),
      claimsCreated_(telemetry::nodeClaimsCreated(metrics)),
      unschedulablePods_(metrics.gauge("karpenter_scheduler_unschedulable_pods_count",
                                       "The number of unschedulable Pods.", {"controller"})) {
  unschedulablePods_.with({kName}).set(0);
}

runtime::Controller& Provisioner::setup(runtime::Manager& manager) {
  caches_.pods = &manager.informerFor<api::corev1::Pod>().cache();
  caches_.nodes = &manager.informerFor<api::corev1::Node>().cache();
  caches_.nodeClaims = &manager.informerFor<NodeClaim>().cache();
  caches_.nodePools = &manager.informerFor<api::karpenter::NodePool>().cache();
  caches_.daemonSets = &manager.informerFor<api::corev1::DaemonSet>().cache();
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = 1;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  const PendingRule rule = options_.pendingRule;
  controller.watchMapped(manager.informerFor<api::corev1::Pod>(),
                         [this, rule](const api::Object& object) {
                           std::vector<runtime::Request> out;
                           const auto* pod = object.as<api::corev1::Pod>();
                           if (pod != nullptr && isProvisionable(*pod, rule)) {
                             batcher_.trigger();
                             out.push_back({"", kSingletonKey});
                           }
                           return out;
                         });
  // Pods pending on a NodeClaim or Node that goes away (deleted for a capacity shortage, drained,
  // timed out) have nothing else to wake a pass: their disappearance does.
  auto wake = [this, &controller](const api::Object&) {
    batcher_.trigger();
    controller.enqueue({"", kSingletonKey});
  };
  kube::EventHandler claimEvents;
  claimEvents.onAdd = [this](const api::Object& object) { seen(object.metadata().name); };
  claimEvents.onDelete = wake;
  manager.informerFor<NodeClaim>().addHandler(std::move(claimEvents));
  kube::EventHandler nodeEvents;
  nodeEvents.onDelete = wake;
  manager.informerFor<api::corev1::Node>().addHandler(std::move(nodeEvents));
  // A new NodePool, a raised limit or changed requirements may make room for pods that had none.
  kube::EventHandler poolEvents;
  poolEvents.onAdd = wake;
  poolEvents.onUpdate = [wake](const api::Object& before, const api::Object& after) {
    if (before.metadata().generation != after.metadata().generation) {
      wake(after);
    }
  };
  manager.informerFor<api::karpenter::NodePool>().addHandler(std::move(poolEvents));
  return controller;
}

runtime::Outcome Provisioner::reconcile(const runtime::Request&, runtime::Context& context) {
  // A trigger waits for its batch to close; a reconcile with no trigger is the periodic look
  // while pods stay pending, and runs a pass at once.
  if (auto wait = batcher_.untilClosed(); wait && wait->count() > 0) {
    return Result::after(*wait);
  }
  batcher_.reset();
  auto summary = provision(caches_, context);
  if (!summary) {
    return core::fail(summary.error());
  }
  if (summary->pendingPods > 0) {
    // Pods still wait (for claims in flight, or for room): look again even if nothing changes.
    return Result::after(options_.retryUnschedulable);
  }
  return Result::done();
}

std::vector<NodeClaim> Provisioner::recentClaims() {
  std::lock_guard lock(mu_);
  const auto now = clock_.steadyNow();
  std::erase_if(recent_, [&](const Recent& r) {
    return now - r.at > kRecentClaimTtl || seen_.count(r.claim.metadata.name);
  });
  std::erase_if(seen_, [&](const auto& entry) { return now - entry.second > kRecentClaimTtl; });
  std::vector<NodeClaim> out;
  for (const Recent& r : recent_) {
    out.push_back(r.claim);
  }
  return out;
}

void Provisioner::seen(const std::string& claimName) {
  std::lock_guard lock(mu_);
  seen_[claimName] = clock_.steadyNow();
}

void Provisioner::seen(const ClusterSnapshot& snapshot) {
  std::lock_guard lock(mu_);
  for (const Recent& r : recent_) {
    if (snapshot.cachedClaim(r.claim.metadata.name)) {
      seen_[r.claim.metadata.name] = clock_.steadyNow();
    }
  }
}

core::Result<PassSummary> Provisioner::provision(const ClusterCaches& caches,
                                                 runtime::Context& context) {
  ClusterSnapshot snapshot(caches, options_.pendingRule, recentClaims());
  seen(snapshot);
  PassSummary summary;
  summary.pendingPods = snapshot.pendingPods().size();
  if (summary.pendingPods == 0) {
    unschedulablePods_.with({kName}).set(0);
    return summary;
  }
  std::map<std::string, std::vector<cloud::InstanceType>> typesByPool;
  // Why each pool's cloud left types out, said in every FailedScheduling event: a pod that fits
  // none of the offered types often fits one the node class excluded.
  // Three pools at most keep the message readable (and under kube's 1 KiB event note).
  constexpr size_t kPoolsNamed = 3;
  std::string exclusions;
  size_t poolsExcluding = 0;
  for (const auto& [name, pool] : snapshot.nodePools()) {
    if (api::karpenter::isStatic(*pool)) {
      continue;  // its replicas, not pods, size it (controllers/staticpool)
    }
    auto types = cloud_.instanceTypes(*pool);
    if (!types) {
      core::logWarn(context.log(), "no instance types for the nodepool",
                    {{"nodepool", name}, {"error", types.error()}});
      continue;
    }
    const size_t total = types->compatible.size() + types->excluded.size();
    if (std::string why = cloud::describeExclusions(types->excluded, total, 2); !why.empty()) {
      if (++poolsExcluding <= kPoolsNamed) {
        exclusions += fmt::format("; nodepool {}: {}", name, why);
      }
    }
    typesByPool[name] = std::move(types->compatible);
  }
  if (poolsExcluding > kPoolsNamed) {
    exclusions +=
        fmt::format("; {} more nodepools exclude instance types", poolsExcluding - kPoolsNamed);
  }
  const scheduling::Input input = snapshot.input(typesByPool);
  const auto start = clock_.steadyNow();
  const scheduling::Results results = scheduling::schedule(input);
  summary.seconds = std::chrono::duration<double>(clock_.steadyNow() - start).count();
  schedulingSeconds_.with({kName}).observe(summary.seconds);
  summary.onExistingNodes = results.existingNodes.size();
  summary.unschedulable = results.errors.size();
  unschedulablePods_.with({kName}).set(static_cast<double>(results.errors.size()));

  createClaims(snapshot, results, context, summary);
  for (const auto& [key, why] : results.errors) {
    podEvent(snapshot, key, runtime::EventType::Warning, "FailedScheduling",
             "Failed to schedule pod, " + why + exclusions);
  }
  core::logInfo(context.log(), "scheduled pending pods",
                {{"pending", summary.pendingPods},
                 {"duration", std::chrono::duration<double>(summary.seconds)},
                 {"on-existing", summary.onExistingNodes},
                 {"new-nodeclaims", summary.createdNodeClaims.size()},
                 {"unschedulable", summary.unschedulable}});
  return summary;
}

void Provisioner::createClaims(const ClusterSnapshot& snapshot, const scheduling::Results& results,
                               runtime::Context& context, PassSummary& summary) {
  for (const scheduling::NewNodeClaim& planned : results.newNodeClaims) {
    auto pool = snapshot.nodePools().find(planned.nodePool);
    if (pool == snapshot.nodePools().end() || context.cancelled() || !context.leading()) {
      continue;
    }
    auto created = nodeClaims_.create(makeNodeClaim(*pool->second, planned, options_.hashPolicy));
    if (!created) {
      core::logError(context.log(), "creating a nodeclaim failed",
                     {{"nodepool", planned.nodePool}, {"error", created.error().describe()}});
      continue;
    }
    {
      std::lock_guard lock(mu_);
      recent_.push_back({*created, clock_.steadyNow()});
    }
    // Karpenter's reason for a claim made for pending pods; minValues are never relaxed here.
    claimsCreated_.with({"provisioned", planned.nodePool, "false"}).inc();
    summary.createdNodeClaims.push_back(created->metadata.name);
    const std::string message =
        fmt::format("Pod should schedule on: nodeclaim/{} ({} instance types, from ${:.4f}/h)",
                    created->metadata.name, planned.instanceTypes.size(), planned.cheapestPrice);
    for (const auto* pod : planned.pods) {
      podEvent(snapshot, podKey(*pod), runtime::EventType::Normal, "Nominated", message);
    }
  }
  for (const auto& [key, node] : results.existingNodes) {
    podEvent(snapshot, key, runtime::EventType::Normal, "Nominated",
             "Pod should schedule on: " + node);
  }
}

void Provisioner::podEvent(const ClusterSnapshot& snapshot, const std::string& key,
                           runtime::EventType type, const std::string& reason,
                           const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  if (const api::Object* pod = snapshot.pendingPod(key)) {
    events_->event(*pod, type, reason, message);
  }
}

}  // namespace nodewright::controllers::provisioning
