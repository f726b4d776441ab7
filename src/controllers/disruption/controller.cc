#include "controllers/disruption/controller.h"

#include <set>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "controllers/disruption/static_pools.h"
#include "controllers/telemetry/karpenter.h"
#include "core/log.h"

namespace nodewright::controllers::disruption {
namespace {

// Where a command's step leaves its claim in the pass's report.
void recordStep(PassReport& report, const std::string& name, Step step) {
  if (step == Step::Deleted) {
    report.deleted.push_back(name);
  } else if (step == Step::GaveUp) {
    report.gaveUp.push_back(name);
  } else {
    ++report.inFlight;
  }
}

}  // namespace

using api::karpenter::NodePool;
using runtime::Result;

DisruptionController::DisruptionController(kube::Client& client, cloud::CloudProvider& cloud,
                                           const core::Clock& clock, runtime::EventRecorder* events,
                                           runtime::Registry& metrics, DisruptionOptions options)
    : clock_(clock),
      options_(std::move(options)),
      startedAt_(clock.now()),
      orchestrator_(client, cloud, clock, events, metrics, options_.orchestration),
      allowed_(metrics.gauge("karpenter_nodepools_allowed_disruptions",
                             "The number of nodes for a given NodePool that can be concurrently "
                             "disrupting at a point in time. Labeled by NodePool. Note that "
                             "allowed disruptions can change very rapidly, as new nodes may be "
                             "created and others may be deleted at any point.",
                             {"nodepool", "reason"})),
      eligible_(metrics.gauge("karpenter_voluntary_disruption_eligible_nodes",
                              "Number of nodes eligible for disruption by Karpenter. Labeled by "
                              "disruption reason.",
                              {"reason"})) {}

runtime::Controller& DisruptionController::setup(runtime::Manager& manager) {
  caches_.pods = &manager.informerFor<api::corev1::Pod>().cache();
  caches_.nodes = &manager.informerFor<api::corev1::Node>().cache();
  caches_.nodeClaims = &manager.informerFor<api::karpenter::NodeClaim>().cache();
  caches_.nodePools = &manager.informerFor<api::karpenter::NodePool>().cache();
  caches_.daemonSets = &manager.informerFor<api::corev1::DaemonSet>().cache();
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = 1;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  auto singleton = [](const api::Object&) {
    return std::vector<runtime::Request>{{"", kSingletonKey}};
  };
  controller.watchMapped(manager.informerFor<api::karpenter::NodeClaim>(), singleton);
  controller.watchMapped(manager.informerFor<api::corev1::Node>(), singleton);
  controller.watchMapped(manager.informerFor<api::karpenter::NodePool>(), singleton);
  controller.enqueue({"", kSingletonKey});
  return controller;
}

runtime::Outcome DisruptionController::reconcile(const runtime::Request&,
                                                 runtime::Context& context) {
  auto report = disrupt(caches_, context);
  if (!report) {
    return core::fail(report.error());
  }
  return Result::after(options_.pollInterval);
}

void DisruptionController::observe(const ClusterView& view) {
  std::lock_guard lock(mu_);
  std::map<std::string, core::TimePoint> next;
  for (const ClaimView& claim : view.claims()) {
    const std::string& name = claim.claim->metadata.name;
    if (!claim.pods.empty()) {
      next[name] = clock_.now();
    } else if (auto it = lastPodSeen_.find(name); it != lastPodSeen_.end()) {
      next[name] = it->second;
    }
  }
  lastPodSeen_ = std::move(next);
}

std::optional<core::TimePoint> DisruptionController::lastPodSeen(const std::string& claim) {
  std::lock_guard lock(mu_);
  auto it = lastPodSeen_.find(claim);
  // Not known since this process started: it may have had pods a moment before, so emptiness
  // counts from the start (a restart never shortens consolidateAfter).
  return it == lastPodSeen_.end() ? startedAt_ : it->second;
}

core::Result<PassReport> DisruptionController::disrupt(const provisioning::ClusterCaches& caches,
                                                       runtime::Context& context) {
  const ClusterView view(caches);
  observe(view);
  PassReport report;
  for (const ClaimView& claim : view.claims()) {
    if (!claim.command) {
      continue;
    }
    auto step = orchestrator_.resume(caches, view, claim);
    if (!step) {
      core::logWarn(context.log(), "disruption step failed",
                    {{"nodeclaim", claim.claim->metadata.name}, {"error", step.error()}});
      continue;
    }
    recordStep(report, claim.claim->metadata.name, *step);
  }

  const auto now = clock_.now();
  Candidates candidates =
      findCandidates(view, now, [this](const std::string& claim) { return lastPodSeen(claim); });
  std::map<std::string, double> eligible;
  for (const auto& [candidate, why] : candidates.blocked) {
    report.blocked.push_back(candidate.view->claim->metadata.name + ": " + why);
  }
  // Budgets are read once per pool and reason; every start this pass, whatever its reason,
  // disrupts one more of its pool's nodes.
  std::map<std::pair<std::string, std::string>, core::Result<PoolBudget>> budgets;
  std::map<std::string, int> startedInPool;
  std::set<std::string> startedNodes;
  for (const Candidate& candidate : candidates.ready) {
    eligible[candidate.reason] += 1;
    const std::string& name = candidate.view->claim->metadata.name;
    const std::string& pool = candidate.view->pool;
    auto key = std::pair(pool, candidate.reason);
    auto known = budgets.find(key);
    if (known == budgets.end()) {
      known = budgets.emplace(key, poolBudget(view, pool, candidate.reason, now)).first;
    }
    const auto& budget = known->second;
    if (!budget) {
      core::logWarn(context.log(), "reading the disruption budget failed",
                    {{"nodepool", pool}, {"error", budget.error()}});
      report.blocked.push_back(name + ": " + budget.error().message());
      continue;
    }
    if (const NodePool* nodePool = view.pool(pool);
        nodePool != nullptr && api::karpenter::isStatic(*nodePool)) {
      if (auto why = staticReplacementBlocked(view, *nodePool, startedInPool[pool])) {
        report.blocked.push_back(name + ": " + *why);
        continue;
      }
    }
    const int room = budget->room() - startedInPool[pool];
    allowed_.with({pool, telemetry::reasonLabel(candidate.reason)}).set(std::max(0, room));
    if (room <= 0) {
      report.blocked.push_back(name + ": budget: " + budget->verdict.description);
      continue;
    }
    auto step =
        orchestrator_.start(caches, view, candidate, budget->verdict.description, startedNodes);
    if (!step) {
      core::logWarn(context.log(), "disrupting failed",
                    {{"nodeclaim", name}, {"error", step.error()}});
      continue;
    }
    if (*step == Step::Blocked) {
      report.blocked.push_back(name + ": pods cannot be rescheduled");
      continue;
    }
    if (*step == Step::Waiting) {
      continue;
    }
    ++startedInPool[pool];
    report.started.push_back(name);
    core::logInfo(context.log(), "disrupting",
                  {{"nodeclaim", name}, {"reason", candidate.reason}, {"why", candidate.why}});
    recordStep(report, name, *step);
  }
  for (const char* reason : {kReasonDrifted, kReasonEmpty, kReasonExpired}) {
    eligible_.with({telemetry::reasonLabel(reason)}).set(eligible[reason]);
  }
  return report;
}

}  // namespace nodewright::controllers::disruption
