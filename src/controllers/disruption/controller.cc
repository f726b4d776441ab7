#include "controllers/disruption/controller.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/policy.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "cloud/well_known_labels.h"
#include "controllers/disruption/consolidation_candidates.h"
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
    : cloud_(cloud),
      clock_(clock),
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
                              {"reason"})),
      timeouts_(metrics.counter("karpenter_voluntary_disruption_consolidation_timeouts_total",
                                "Number of times the Consolidation algorithm has reached a "
                                "timeout. Labeled by consolidation type.",
                                {"consolidation_type"})) {}

runtime::Controller& DisruptionController::setup(runtime::Manager& manager) {
  caches_.pods = &manager.informerFor<api::corev1::Pod>().cache();
  caches_.nodes = &manager.informerFor<api::corev1::Node>().cache();
  caches_.nodeClaims = &manager.informerFor<api::karpenter::NodeClaim>().cache();
  caches_.nodePools = &manager.informerFor<api::karpenter::NodePool>().cache();
  caches_.daemonSets = &manager.informerFor<api::corev1::DaemonSet>().cache();
  if (options_.consolidation) {
    pdbs_ = &manager.informerFor<api::corev1::PodDisruptionBudget>().cache();
  }
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
  // A claim first seen since this process started counts from the start, as emptiness does.
  std::map<std::string, std::pair<std::vector<std::string>, core::TimePoint>> changes;
  for (const ClaimView& claim : view.claims()) {
    std::vector<std::string> uids;
    for (const api::corev1::Pod* pod : claim.pods) {
      uids.push_back(pod->metadata.uid);
    }
    std::sort(uids.begin(), uids.end());
    const std::string& name = claim.claim->metadata.name;
    auto known = podChanges_.find(name);
    const core::TimePoint since = known == podChanges_.end()    ? startedAt_
                                  : known->second.first == uids ? known->second.second
                                                                : clock_.now();
    changes[name] = {std::move(uids), since};
  }
  podChanges_ = std::move(changes);
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
  // Consolidation decides over a view that shows every command: not in a pass that started one.
  if (options_.consolidation && report.started.empty()) {
    consolidate(caches, view, report, context, startedNodes);
  }
  return report;
}

void DisruptionController::consolidate(const provisioning::ClusterCaches& caches,
                                       const ClusterView& view, PassReport& report,
                                       runtime::Context& context,
                                       std::set<std::string>& startedNodes) {
  const auto now = clock_.now();
  const TypesByPool types = destinationTypes(view.pools(), cloud_);
  std::vector<api::corev1::PodDisruptionBudget> pdbs;
  if (pdbs_ != nullptr) {
    for (const api::Object& object : pdbs_->list()) {
      if (const auto* pdb = object.as<api::corev1::PodDisruptionBudget>()) {
        pdbs.push_back(*pdb);
      }
    }
  }
  CandidateInput input;
  input.view = &view;
  input.caches = &caches;
  input.pdbs = &pdbs;
  input.types = &types;
  input.now = now;
  input.lastPodSeen = [this](const std::string& claim) -> std::optional<core::TimePoint> {
    std::lock_guard lock(mu_);
    auto it = podChanges_.find(claim);
    return it == podChanges_.end() ? startedAt_ : it->second.second;
  };
  ConsolidationCandidates candidates = findConsolidationCandidates(input);
  // As for emptiness above: while pods wait unbound, an empty node may be where they are headed.
  if (view.unboundPods() > 0) {
    std::erase_if(candidates.ready, [&](const ConsolidationCandidate& c) {
      if (c.empty()) {
        candidates.excluded.push_back({c.name(), "empty, but pods wait unbound: may be theirs"});
      }
      return c.empty();
    });
  }
  const auto underused = std::count_if(candidates.ready.begin(), candidates.ready.end(),
                                       [](const ConsolidationCandidate& c) { return !c.empty(); });
  eligible_.with({telemetry::reasonLabel(kReasonUnderutilized)})
      .set(static_cast<double>(underused));
  // A node a PodDisruptionBudget or do-not-disrupt keeps is told why, as upstream's
  // Unconsolidatable events do ("pdb default/web prevents eviction of pod default/web-0").
  for (const Unconsolidatable& u : candidates.excluded) {
    if (keptByProtection(u)) {
      if (const ClaimView* claim = view.claim(u.claim)) {
        orchestrator_.unconsolidatable(*claim, u.why);
      }
    }
  }
  const Room room = [&](const std::string& pool, const std::string& reason) {
    auto budget = poolBudget(view, pool, reason, now);
    return budget ? budget->room() : 0;
  };
  Consolidator consolidator(caches, view, types, clock_, options_.consolidationOptions);

  std::optional<DecisionRecord> pending;
  {
    std::lock_guard lock(mu_);
    pending = pending_;
  }
  if (pending) {
    Validation validation = validate(*pending, consolidator, candidates, room, now);
    if (validation.validity == Validity::Wait) {
      report.consolidation =
          fmt::format("waiting to re-validate: {}", fmt::join(pending->candidates, ", "));
      return;
    }
    {
      std::lock_guard lock(mu_);
      pending_.reset();
    }
    if (validation.validity == Validity::Stale) {
      report.consolidation = "stale: " + validation.why;
      core::logInfo(context.log(), "consolidation decision is stale", {{"why", validation.why}});
      return;
    }
    startConsolidation(caches, view, *validation.decision, report, context, startedNodes);
    return;
  }
  std::optional<Decision> decision = consolidator.decide(candidates, room);
  if (consolidator.timedOut()) {
    timeouts_.with({decision ? methodLabel(decision->method) : "single"}).inc();
  }
  for (const Unconsolidatable& u : consolidator.unconsolidatable()) {
    if (const ClaimView* claim = view.claim(u.claim)) {
      orchestrator_.unconsolidatable(*claim, u.why);
    }
  }
  if (!decision) {
    return;
  }
  report.consolidation = "decided: " + decision->describe();
  core::logInfo(context.log(), "consolidation decided",
                {{"method", methodLabel(decision->method)}, {"decision", decision->describe()}});
  std::lock_guard lock(mu_);
  pending_ = decision->record();
}

void DisruptionController::startConsolidation(const provisioning::ClusterCaches& caches,
                                              const ClusterView& view, const Decision& decision,
                                              PassReport& report, runtime::Context& context,
                                              std::set<std::string>& startedNodes) {
  report.consolidation = "started: " + decision.describe();
  std::string capacityType;
  if (decision.replacement) {
    for (const auto& r : decision.replacement->spec.requirements) {
      if (r.key == cloud::labels::kCapacityType && r.operator_ == "In" && r.values.size() == 1) {
        capacityType = r.values.front();
      }
    }
  }
  const auto now = clock_.now();
  if (decision.replacement && decision.candidates.size() > 1) {
    startGroup(caches, view, decision, capacityType, report, context, startedNodes);
    return;
  }
  for (const ConsolidationCandidate& c : decision.candidates) {
    Candidate candidate;
    candidate.view = c.view;
    candidate.reason = decision.reason;
    candidate.why = decision.describe();
    candidate.consolidationType = methodLabel(decision.method);
    if (decision.replacement) {
      candidate.instanceTypes = decision.replacementTypes;
      candidate.capacityType = capacityType;
    }
    const std::string& name = c.name();
    auto budget = poolBudget(view, c.view->pool, decision.reason, now);
    auto step =
        orchestrator_.start(caches, view, candidate,
                            budget ? budget->verdict.description : std::string(), startedNodes);
    if (!step) {
      core::logWarn(context.log(), "consolidating failed",
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
    report.started.push_back(name);
    core::logInfo(context.log(), "disrupting",
                  {{"nodeclaim", name}, {"reason", decision.reason}, {"why", candidate.why}});
    recordStep(report, name, *step);
  }
}

void DisruptionController::startGroup(const provisioning::ClusterCaches& caches,
                                      const ClusterView& view, const Decision& decision,
                                      const std::string& capacityType, PassReport& report,
                                      runtime::Context& context,
                                      std::set<std::string>& startedNodes) {
  std::vector<Candidate> group;
  for (const ConsolidationCandidate& c : decision.candidates) {
    Candidate candidate;
    candidate.view = c.view;
    candidate.reason = decision.reason;
    candidate.why = decision.describe();
    candidate.consolidationType = methodLabel(decision.method);
    candidate.instanceTypes = decision.replacementTypes;
    candidate.capacityType = capacityType;
    group.push_back(std::move(candidate));
  }
  const std::vector<std::string> names = decision.names();
  auto budget = poolBudget(view, group.front().view->pool, decision.reason, clock_.now());
  auto step = orchestrator_.startGroup(
      caches, view, group, budget ? budget->verdict.description : std::string(), startedNodes);
  if (!step) {
    core::logWarn(context.log(), "consolidating failed",
                  {{"nodeclaims", fmt::format("{}", fmt::join(names, ","))},
                   {"error", step.error()}});
    return;
  }
  if (*step == Step::Blocked) {
    for (const auto& name : names) {
      report.blocked.push_back(name + ": pods cannot be rescheduled");
    }
    return;
  }
  if (*step == Step::Waiting) {
    return;
  }
  core::logInfo(context.log(), "disrupting",
                {{"nodeclaims", fmt::format("{}", fmt::join(names, ","))},
                 {"reason", decision.reason},
                 {"why", decision.describe()}});
  for (const auto& name : names) {
    report.started.push_back(name);
    recordStep(report, name, Step::Advanced);
  }
}

}  // namespace nodewright::controllers::disruption
