#include "controllers/disruption/orchestrator.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/karpenter/well_known.h"
#include "cloud/well_known_labels.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/nodeclaim_factory.h"
#include "controllers/telemetry/karpenter.h"

namespace nodewright::controllers::disruption {
namespace {

using api::corev1::Node;
using api::karpenter::NodeClaim;

// How long a replacement this process created may be missing from the cache before it counts
// as gone.
constexpr auto kCacheLag = std::chrono::seconds(30);

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

// Karpenter's decision labels: what the command does, why (lower case), and the consolidation
// type ("empty" for emptiness, none for drift and expiry, which are not consolidation).
runtime::Labels decisionLabels(const Command& command) {
  const std::string reason = telemetry::reasonLabel(command.reason);
  std::string type = command.consolidationType;
  if (type.empty() && reason == "empty") {
    type = "empty";
  }
  return {command.replacements.empty() ? "delete" : "replace", reason, type};
}

// Consolidation decided on one replacement of cheaper types: a fresh simulation of the same
// pods gives the scheduler's replacement, narrowed again to what was decided. False when the
// pods now need other than one replacement.
bool applyNarrowing(Simulation& simulation, const Command& command) {
  if (command.instanceTypes.empty()) {
    return true;
  }
  if (simulation.replacements.size() != 1) {
    return false;
  }
  NodeClaim& replacement = simulation.replacements.front();
  narrowRequirement(replacement, cloud::labels::kInstanceType, command.instanceTypes);
  if (!command.capacityType.empty()) {
    narrowRequirement(replacement, cloud::labels::kCapacityType, {command.capacityType});
  }
  return true;
}

// A command for `candidate`, launching, started now (to the second, as it is recorded).
Command newCommand(const Candidate& candidate, const std::string& budget, core::TimePoint now) {
  Command command;
  command.reason = candidate.reason;
  command.phase = kPhaseLaunching;
  command.started = std::chrono::time_point_cast<std::chrono::seconds>(now);
  command.budget = budget;
  command.instanceTypes = candidate.instanceTypes;
  command.capacityType = candidate.capacityType;
  command.consolidationType = candidate.consolidationType;
  return command;
}

// The simulation scope of `command` on `claim`: a lead's takes the pods of its whole group.
provisioning::DisruptionScope commandScope(const ClusterView& view, const ClaimView& claim,
                                           const Command& command) {
  provisioning::DisruptionScope scope = disruptionScope(view, claim);
  for (const auto& name : command.group) {
    const ClaimView* member = view.claim(name);
    if (member != nullptr && member->node != nullptr) {
      scope.nodes.insert(member->node->metadata.name);
      scope.excludedNodes.erase(member->node->metadata.name);
    }
  }
  return scope;
}

// The candidate whose command creates `command`'s replacements (and whom they name).
const std::string& owner(const ClaimView& claim, const Command& command) {
  return command.lead.empty() ? claim.claim->metadata.name : command.lead;
}

// Whether a follower's lead still carries the command that will create their replacement.
bool leadLaunching(const ClusterView& view, const Command& command) {
  if (command.lead.empty()) {
    return false;
  }
  const ClaimView* lead = view.claim(command.lead);
  return lead != nullptr && !lead->deleting && lead->command &&
         lead->command->started == command.started && lead->command->phase == kPhaseLaunching &&
         lead->command->replacements == command.replacements;
}

}  // namespace

Orchestrator::Orchestrator(kube::Client& client, cloud::CloudProvider& cloud,
                           const core::Clock& clock, runtime::EventRecorder* events,
                           runtime::Registry& metrics, OrchestratorOptions options)
    : client_(client),
      claims_(client),
      cloud_(cloud),
      clock_(clock),
      events_(events),
      options_(std::move(options)),
      disrupted_(metrics.counter(
          "karpenter_nodeclaims_disrupted_total",
          "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim "
          "was disrupted and the owning nodepool.",
          {"reason", "nodepool", "capacity_type"})),
      decisions_(metrics.counter("karpenter_voluntary_disruption_decisions_total",
                                 "Number of disruption decisions performed. Labeled by "
                                 "disruption decision, reason, and consolidation type.",
                                 {"decision", "reason", "consolidation_type"})),
      queueFailures_(metrics.counter("karpenter_voluntary_disruption_queue_failures_total",
                                     "The number of times that an enqueued disruption decision "
                                     "failed. Labeled by disruption method.",
                                     {"decision", "reason", "consolidation_type"})),
      claimsCreated_(telemetry::nodeClaimsCreated(metrics)) {}

core::Result<Step> Orchestrator::start(const provisioning::ClusterCaches& caches,
                                       const ClusterView& view, const Candidate& candidate,
                                       const std::string& budget,
                                       std::set<std::string>& startedNodes) {
  const ClaimView& claim = *candidate.view;
  provisioning::DisruptionScope scope = disruptionScope(view, claim);
  scope.excludedNodes.insert(startedNodes.begin(), startedNodes.end());
  auto simulation = plan(caches, view, claim, scope);
  if (!simulation) {
    return core::fail(simulation.error());
  }
  if (!simulation->unschedulable.empty()) {
    const auto& [pod, why] = *simulation->unschedulable.begin();
    event(claim, runtime::EventType::Normal, "DisruptionBlocked",
          fmt::format("Cannot disrupt NodeClaim ({}): pod {} cannot be rescheduled: {}",
                      candidate.reason, pod, why));
    return Step::Blocked;
  }
  Command command = newCommand(candidate, budget, clock_.now());
  if (!applyNarrowing(*simulation, command)) {
    event(claim, runtime::EventType::Normal, "DisruptionBlocked",
          fmt::format("Cannot disrupt NodeClaim ({}): its pods now need {} new nodes, not the "
                      "one consolidation decided on",
                      candidate.reason, simulation->replacements.size()));
    return Step::Blocked;
  }
  for (size_t i = 0; i < simulation->replacements.size(); ++i) {
    command.replacements.push_back(
        replacementName(claim.pool, claim.claim->metadata.uid, command.started, i));
  }
  auto recorded = record(claim, command, std::nullopt);
  if (!recorded) {
    return core::fail(recorded.error());
  }
  if (!*recorded) {
    return Step::Waiting;
  }
  if (claim.node != nullptr) {
    startedNodes.insert(claim.node->metadata.name);
  }
  decisions_.with(decisionLabels(command)).inc();
  event(claim, runtime::EventType::Normal, "DisruptionLaunching",
        command.replacements.empty()
            ? fmt::format("Disrupting NodeClaim ({}: {}); its pods fit elsewhere", candidate.reason,
                          candidate.why)
            : fmt::format("Launching {} replacement(s) for NodeClaim ({}: {}): {}",
                          command.replacements.size(), candidate.reason, candidate.why,
                          joined(simulation->summaries)));
  // Recorded: whatever happens next, the command exists and counts against its budget; an
  // error here is retried by the next pass's resume.
  auto launched = launch(caches, view, claim, std::move(command));
  if (!launched) {
    return core::fail(launched.error());
  }
  return *launched == Step::Waiting ? Step::Advanced : *launched;
}

core::Result<Step> Orchestrator::startGroup(const provisioning::ClusterCaches& caches,
                                            const ClusterView& view,
                                            const std::vector<Candidate>& candidates,
                                            const std::string& budget,
                                            std::set<std::string>& startedNodes) {
  if (candidates.empty()) {
    return Step::Waiting;
  }
  const Candidate& first = candidates.front();
  const ClaimView& lead = *first.view;
  Command command = newCommand(first, budget, clock_.now());
  std::vector<std::string> names{lead.claim->metadata.name};
  for (size_t i = 1; i < candidates.size(); ++i) {
    command.group.push_back(candidates[i].view->claim->metadata.name);
    names.push_back(command.group.back());
  }
  provisioning::DisruptionScope scope = commandScope(view, lead, command);
  for (const auto& node : startedNodes) {
    if (!scope.nodes.count(node)) {
      scope.excludedNodes.insert(node);
    }
  }
  auto simulation = simulate(caches, scope, cloud_, options_.hashPolicy);
  if (!simulation) {
    return core::fail(simulation.error());
  }
  if (!simulation->unschedulable.empty()) {
    const auto& [pod, why] = *simulation->unschedulable.begin();
    event(lead, runtime::EventType::Normal, "DisruptionBlocked",
          fmt::format("Cannot disrupt NodeClaims {} ({}): pod {} cannot be rescheduled: {}",
                      joined(names), first.reason, pod, why));
    return Step::Blocked;
  }
  if (simulation->replacements.size() != 1 || !applyNarrowing(*simulation, command)) {
    event(lead, runtime::EventType::Normal, "DisruptionBlocked",
          fmt::format("Cannot disrupt NodeClaims {} ({}): their pods now need {} new nodes, not "
                      "the one consolidation decided on",
                      joined(names), first.reason, simulation->replacements.size()));
    return Step::Blocked;
  }
  command.replacements.push_back(
      replacementName(lead.pool, lead.claim->metadata.uid, command.started, 0));
  // Followers first: a crash before the lead's record leaves followers whose lead has no
  // command, and they give up; nothing was created.
  std::vector<std::pair<const ClaimView*, Command>> followers;
  auto undo = [&]() {
    for (const auto& [member, onRecord] : followers) {
      (void)record(*member, std::nullopt, onRecord);
    }
  };
  for (size_t i = 1; i < candidates.size(); ++i) {
    Command follower = command;
    follower.group.clear();
    follower.lead = lead.claim->metadata.name;
    auto recorded = record(*candidates[i].view, follower, std::nullopt);
    if (!recorded || !*recorded) {
      undo();
      if (!recorded) {
        return core::fail(recorded.error());
      }
      return Step::Waiting;
    }
    followers.emplace_back(candidates[i].view, std::move(follower));
  }
  auto recorded = record(lead, command, std::nullopt);
  if (!recorded || !*recorded) {
    undo();
    if (!recorded) {
      return core::fail(recorded.error());
    }
    return Step::Waiting;
  }
  for (const Candidate& c : candidates) {
    if (c.view->node != nullptr) {
      startedNodes.insert(c.view->node->metadata.name);
    }
  }
  decisions_.with(decisionLabels(command)).inc();
  event(lead, runtime::EventType::Normal, "DisruptionLaunching",
        fmt::format("Launching 1 replacement for NodeClaims {} ({}: {}): {}", joined(names),
                    first.reason, first.why, joined(simulation->summaries)));
  // Recorded: from here on every step is the resume's; errors are retried by the next pass.
  auto launched = launch(caches, view, lead, command);
  for (const auto& [member, follower] : followers) {
    Command next = follower;
    next.phase = kPhaseReplacing;
    if (taint(*member, true)) {
      (void)record(*member, next, follower);
    }
  }
  if (!launched) {
    return core::fail(launched.error());
  }
  return *launched == Step::Waiting ? Step::Advanced : *launched;
}

core::Result<Simulation> Orchestrator::plan(const provisioning::ClusterCaches& caches,
                                            const ClusterView& view, const ClaimView& claim,
                                            const provisioning::DisruptionScope& scope) {
  const api::karpenter::NodePool* pool = view.pool(claim.pool);
  if (pool == nullptr || !api::karpenter::isStatic(*pool)) {
    return simulate(caches, scope, cloud_, options_.hashPolicy);
  }
  // Karpenter's static drift: one node for one, from the template; its pods find room as the
  // scheduler places them, as they would after any node of the pool went.
  Simulation out;
  out.pods = claim.pods.size();
  out.replacements.push_back(provisioning::makeStaticNodeClaim(*pool, options_.hashPolicy));
  out.summaries.push_back(
      fmt::format("static nodepool {}: one node from its template", pool->metadata.name));
  return out;
}

core::Result<Step> Orchestrator::resume(const provisioning::ClusterCaches& caches,
                                        const ClusterView& view, const ClaimView& claim) {
  if (!claim.command || claim.deleting) {
    return Step::Waiting;
  }
  const Command& command = *claim.command;
  if (command.phase == kPhaseLaunching) {
    return launch(caches, view, claim, command);
  }
  if (command.phase == kPhaseReplacing) {
    return awaitReplacements(view, claim, command);
  }
  return deleteCandidate(claim, command);
}

core::Result<Step> Orchestrator::launch(const provisioning::ClusterCaches& caches,
                                        const ClusterView& view, const ClaimView& claim,
                                        Command command) {
  const Command onRecord = command;
  if (auto tainted = taint(claim, true); !tainted) {
    return core::fail(tainted.error());
  }
  if (clock_.now() - command.started > options_.replacementTimeout) {
    return giveUp(claim, command, "the replacements could not all be created in time");
  }
  std::vector<size_t> missing;
  for (size_t i = 0; i < command.replacements.size(); ++i) {
    const std::string& name = command.replacements[i];
    const ClaimView* existing = view.claim(name);
    if (existing != nullptr && existing->replaces != owner(claim, command)) {
      return giveUp(claim, command, "NodeClaim " + name + " exists but replaces something else");
    }
    if (existing == nullptr && !recentlyCreated(name)) {
      missing.push_back(i);
    }
  }
  // A follower creates nothing: its lead does, while it still carries the command.
  if (!missing.empty() && !command.lead.empty() && !leadLaunching(view, command)) {
    return giveUp(claim, command, "its lead " + command.lead + " no longer carries the command");
  }
  if (!missing.empty() && command.lead.empty()) {
    // Simulated again, as when the command started: the same pods give the same replacements,
    // in the same order, and the missing ones are created under the names recorded for them.
    // Anything else means the cluster moved on: the command is given up and started afresh.
    auto simulation = plan(caches, view, claim, commandScope(view, claim, command));
    if (!simulation) {
      return core::fail(simulation.error());
    }
    if (!simulation->unschedulable.empty()) {
      return giveUp(claim, command,
                    "pod " + simulation->unschedulable.begin()->first + " cannot be rescheduled");
    }
    if (simulation->replacements.size() != command.replacements.size() ||
        !applyNarrowing(*simulation, command)) {
      return giveUp(claim, command, "the pods now need other replacements than planned");
    }
    for (size_t i : missing) {
      NodeClaim replacement = simulation->replacements[i];
      replacement.metadata.generateName.clear();
      replacement.metadata.name = command.replacements[i];
      replacement.metadata.annotations[api::karpenter::kReplacesAnnotation] =
          claim.claim->metadata.name;
      auto created = claims_.create(replacement);
      if (!created && !created.error().is(kube::Reason::AlreadyExists)) {
        return core::fail(
            created.error().toError().wrap("creating replacement " + replacement.metadata.name));
      }
      if (created) {
        claimsCreated_
            .with({telemetry::reasonLabel(command.reason),
                   telemetry::labelValue(replacement.metadata, api::karpenter::kNodePoolLabel),
                   "false"})
            .inc();
      }
      std::lock_guard lock(mu_);
      created_[replacement.metadata.name] = clock_.steadyNow();
    }
  }
  Command next = command;
  next.phase = command.replacements.empty() ? kPhaseDeleting : kPhaseReplacing;
  auto recorded = record(claim, next, onRecord);
  if (!recorded) {
    return core::fail(recorded.error());
  }
  if (!*recorded) {
    return Step::Waiting;  // the record changed under us (cancelled, or another step ran)
  }
  if (next.phase == kPhaseDeleting) {
    return deleteCandidate(claim, next);
  }
  return Step::Advanced;
}

core::Result<Step> Orchestrator::awaitReplacements(const ClusterView& view, const ClaimView& claim,
                                                   Command command) {
  size_t initialized = 0;
  for (const auto& name : command.replacements) {
    const ClaimView* replacement = view.claim(name);
    if (replacement == nullptr) {
      if (recentlyCreated(name) || leadLaunching(view, command)) {
        continue;
      }
      return giveUp(claim, command, "replacement " + name + " is gone");
    }
    if (replacement->replaces != owner(claim, command)) {
      return giveUp(claim, command, "NodeClaim " + name + " exists but replaces something else");
    }
    if (replacement->deleting) {
      return giveUp(claim, command, "replacement " + name + " is being deleted");
    }
    const auto* launched =
        nodeclaim::findCondition(replacement->claim->status.conditions, api::karpenter::kLaunched);
    if (launched != nullptr && launched->status == "False") {
      return giveUp(claim, command,
                    "replacement " + name + " failed to launch: " + launched->message);
    }
    initialized += replacement->initialized ? 1 : 0;
  }
  if (initialized < command.replacements.size()) {
    if (clock_.now() - command.started > options_.replacementTimeout) {
      return giveUp(claim, command,
                    fmt::format("replacements not initialized after {}s",
                                options_.replacementTimeout.count()));
    }
    return Step::Waiting;
  }
  Command next = command;
  next.phase = kPhaseDeleting;
  auto recorded = record(claim, next, command);
  if (!recorded) {
    return core::fail(recorded.error());
  }
  return *recorded ? deleteCandidate(claim, next) : Step::Waiting;
}

core::Result<Step> Orchestrator::deleteCandidate(const ClaimView& claim, const Command& command) {
  kube::DeleteOptions options;
  options.preconditionUid = claim.claim->metadata.uid;
  auto removed = claims_.remove("", claim.claim->metadata.name, options);
  if (!removed && !removed.error().is(kube::Reason::NotFound)) {
    return core::fail(removed.error().toError().wrap("deleting " + claim.claim->metadata.name));
  }
  disrupted_
      .with({telemetry::reasonLabel(command.reason), claim.pool,
             telemetry::labelValue(claim.claim->metadata, "karpenter.sh/capacity-type")})
      .inc();
  event(claim, runtime::EventType::Normal, "DisruptionTerminating",
        fmt::format("Disrupting NodeClaim: {}; replaced by {}", command.reason,
                    command.replacements.empty() ? std::string("nothing (its pods fit elsewhere)")
                                                 : joined(command.replacements)));
  return Step::Deleted;
}

core::Result<Step> Orchestrator::giveUp(const ClaimView& claim, const Command& command,
                                        const std::string& why) {
  if (auto untainted = taint(claim, false); !untainted) {
    return core::fail(untainted.error());
  }
  auto recorded = record(claim, std::nullopt, command);
  if (!recorded) {
    return core::fail(recorded.error());
  }
  // The replacements this command made go with it (a left-over would run empty, or be taken for
  // a later command's); only claims that say they replace this candidate are touched.
  for (const auto& name : command.replacements) {
    auto existing = claims_.get("", name);
    if (!existing || existing->metadata.annotations[api::karpenter::kReplacesAnnotation] !=
                         claim.claim->metadata.name) {
      continue;
    }
    kube::DeleteOptions options;
    options.preconditionUid = existing->metadata.uid;
    (void)claims_.remove("", name, options);
  }
  queueFailures_.with(decisionLabels(command)).inc();
  event(claim, runtime::EventType::Warning, "DisruptionFailed",
        "Gave up disrupting NodeClaim (" + command.reason + "): " + why);
  return Step::GaveUp;
}

core::Result<bool> Orchestrator::record(const ClaimView& claim,
                                        const std::optional<Command>& command,
                                        const std::optional<Command>& expected) {
  bool current = true;
  auto updated = kube::updateWithRetry(
      client_, claims_.kind(), "", claim.claim->metadata.name, [&](api::Object& object) {
        auto* target = object.as<NodeClaim>();
        current = target != nullptr && target->metadata.uid == claim.claim->metadata.uid &&
                  !target->metadata.deletionTimestamp;
        if (!current) {
          return false;
        }
        auto& annotations = target->metadata.annotations;
        auto it = annotations.find(api::karpenter::kDisruptionAnnotation);
        std::optional<Command> onRecord;
        if (it != annotations.end()) {
          auto decoded = decodeCommand(it->second);
          if (!decoded) {
            current = false;  // not ours to overwrite
            return false;
          }
          onRecord = std::move(*decoded);
        }
        // Someone else moved the command on (or away): this step is stale.
        if (onRecord != expected && onRecord != command) {
          current = false;
          return false;
        }
        if (command) {
          annotations[api::karpenter::kDisruptionAnnotation] = encode(*command);
        } else {
          annotations.erase(api::karpenter::kDisruptionAnnotation);
        }
        return onRecord != command;
      });
  if (!updated) {
    if (updated.error().is(kube::Reason::NotFound)) {
      return false;
    }
    return core::fail(updated.error().toError().wrap("recording the disruption command on " +
                                                     claim.claim->metadata.name));
  }
  return current;
}

core::Status Orchestrator::taint(const ClaimView& claim, bool on) {
  if (claim.node == nullptr) {
    return core::ok();
  }
  auto updated =
      kube::updateWithRetry(client_, kube::kindOf<Node>(client_.registry()), "",
                            claim.node->metadata.name, [on](api::Object& object) {
                              auto* node = object.as<Node>();
                              if (node == nullptr || (on && node->metadata.deletionTimestamp)) {
                                return false;
                              }
                              auto& taints = node->spec.taints;
                              auto has = [](const api::corev1::Taint& t) {
                                return t.key == api::karpenter::kDisruptedTaintKey;
                              };
                              const bool present = std::any_of(taints.begin(), taints.end(), has);
                              if (on && !present) {
                                api::corev1::Taint taint;
                                taint.key = api::karpenter::kDisruptedTaintKey;
                                taint.effect = api::corev1::kTaintEffectNoSchedule;
                                taints.push_back(taint);
                                return true;
                              }
                              if (!on && present) {
                                std::erase_if(taints, has);
                                return true;
                              }
                              return false;
                            });
  if (!updated && !updated.error().is(kube::Reason::NotFound)) {
    return core::fail(updated.error().toError().wrap(std::string(on ? "tainting" : "untainting") +
                                                     " node " + claim.node->metadata.name));
  }
  return core::ok();
}

void Orchestrator::unconsolidatable(const ClaimView& claim, const std::string& why) {
  event(claim, runtime::EventType::Normal, "Unconsolidatable", why);
}

bool Orchestrator::recentlyCreated(const std::string& name) {
  std::lock_guard lock(mu_);
  const auto now = clock_.steadyNow();
  std::erase_if(created_, [&](const auto& entry) { return now - entry.second > kCacheLag; });
  return created_.count(name) > 0;
}

void Orchestrator::event(const ClaimView& claim, runtime::EventType type, const std::string& reason,
                         const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  events_->event(api::Object(&claims_.kind(), std::make_shared<NodeClaim>(*claim.claim)), type,
                 reason, message);
  if (claim.node != nullptr) {
    events_->event(
        api::Object(&kube::kindOf<Node>(client_.registry()), std::make_shared<Node>(*claim.node)),
        type, reason, message);
  }
}

}  // namespace nodewright::controllers::disruption
