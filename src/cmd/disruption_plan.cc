#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "api/core/pod.h"
#include "api/core/policy.h"
#include "api/karpenter/hashing.h"
#include "cmd/command.h"
#include "cmd/inspect.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/disruption/replacements.h"
#include "kube/cache.h"

// `nodewright disruption plan`: a dry run of one disruption pass. It takes the candidates in
// the controller's order and decides each as the controller would now: the pool's budget room
// (each disruption planned before it uses one unit of its pool's room), then a scheduling
// simulation of its pods with the nodes planned before it gone. It lists the commands already
// in flight too. It writes nothing. Unlike the running controller it cannot know when an empty
// node last had pods, so it counts emptiness from initialization. Then every consolidation
// decision a run of passes would take (one per pass, as the controller decides), each with its
// savings and where each pod would go, and why a PodDisruptionBudget, do-not-disrupt or the
// simulation keeps a node (the controller's Unconsolidatable events). Each decision after the
// first is made over the cluster the earlier ones leave: their candidates gone and their pods
// where they moved. A pod moved to a new node leaves with it, and the new node takes no pods in
// later decisions, so the list may stop short of what the controller finds once it is up.
namespace nodewright::cmd {
namespace {

using namespace controllers::disruption;
using controllers::provisioning::DisruptionScope;

struct PlanEntry {
  const Candidate* candidate = nullptr;
  bool disrupt = false;
  std::string budget;     // the budget that allows it
  std::string blockedBy;  // why not, when blocked
  std::optional<Simulation> simulation;
};

std::string nodeOf(const ClaimView& view) {
  return view.node != nullptr ? view.node->metadata.name : std::string("<none>");
}

std::vector<PlanEntry> plan(Inspection& in, const ClusterView& view, const Candidates& found,
                            core::TimePoint now) {
  std::vector<PlanEntry> entries;
  std::map<std::string, int> plannedPerPool;
  std::set<std::string> plannedNodes;
  for (const Candidate& candidate : found.ready) {
    PlanEntry& entry = entries.emplace_back();
    entry.candidate = &candidate;
    const ClaimView& claim = *candidate.view;
    auto budget = poolBudget(view, claim.pool, candidate.reason, now);
    if (!budget) {
      entry.blockedBy = "budget unreadable: " + budget.error().message();
      continue;
    }
    entry.budget = budget->verdict.description;
    if (budget->room() - plannedPerPool[claim.pool] <= 0) {
      entry.blockedBy = "budget exhausted: " + budget->verdict.description;
      continue;
    }
    DisruptionScope scope = disruptionScope(view, claim);
    scope.nodes.insert(plannedNodes.begin(), plannedNodes.end());
    auto simulation = simulate(in.caches(), scope, in.cloud(), api::karpenter::defaultHashPolicy());
    if (!simulation) {
      entry.blockedBy = "cannot simulate its replacement: " + simulation.error().message();
      continue;
    }
    if (!simulation->unschedulable.empty()) {
      const auto& [pod, why] = *simulation->unschedulable.begin();
      entry.blockedBy = fmt::format("pods cannot be rescheduled: pod {}: {}", pod, why);
      continue;
    }
    entry.disrupt = true;
    entry.simulation = std::move(*simulation);
    ++plannedPerPool[claim.pool];
    plannedNodes.insert(nodeOf(claim));
  }
  for (const auto& [candidate, why] : found.blocked) {
    PlanEntry& entry = entries.emplace_back();
    entry.candidate = &candidate;
    entry.blockedBy = "do-not-disrupt: " + why;
  }
  return entries;
}

// Enough for any cluster a person reads the plan of; each decision is one more simulation.
constexpr size_t kMaxPlannedDecisions = 50;

// Copies of the inspected pods, nodes and NodeClaims that planned decisions are carried out on.
class PlannedCluster {
 public:
  explicit PlannedCluster(const controllers::provisioning::ClusterCaches& from) : caches_(from) {
    pods_.replace(from.pods->list());
    nodes_.replace(from.nodes->list());
    claims_.replace(from.nodeClaims->list());
    caches_.pods = &pods_;
    caches_.nodes = &nodes_;
    caches_.nodeClaims = &claims_;
  }
  const controllers::provisioning::ClusterCaches& caches() const { return caches_; }

  // As if `decision` had been carried out: its candidates' NodeClaims and Nodes are gone, each
  // pod it moves to a node is bound there, and the rest of their pods are gone.
  void apply(const Decision& decision) {
    std::set<std::string> moved;
    for (const auto& [key, destination] : decision.moves) {
      auto pod = pods_.get(key);
      if (!pod || !nodes_.get(destination)) {
        pods_.erase(key);
        continue;
      }
      auto bound = std::make_shared<api::corev1::Pod>(*pod->as<api::corev1::Pod>());
      bound->spec.nodeName = destination;
      pods_.upsert(api::Object(&pod->info(), std::move(bound)));
      moved.insert(key);
    }
    for (const ConsolidationCandidate& c : decision.candidates) {
      const std::string& node = c.view->node->metadata.name;
      for (const api::Object& pod : pods_.byIndex(kube::kByNodeName, node)) {
        if (!moved.contains(kube::keyOf(pod))) {
          pods_.erase(kube::keyOf(pod));
        }
      }
      nodes_.erase(node);
      claims_.erase(c.name());
    }
  }

 private:
  kube::Cache pods_, nodes_, claims_;
  controllers::provisioning::ClusterCaches caches_;
};

struct ConsolidationPlan {
  // Every view a decision was made over: the decisions point into them.
  std::vector<std::unique_ptr<ClusterView>> views;
  std::vector<Decision> decisions;
  std::vector<Unconsolidatable> kept;  // why the first pass keeps nodes
  double savings() const {
    double total = 0;
    for (const Decision& d : decisions) {
      total += d.savings();
    }
    return total;
  }
};

ConsolidationPlan planConsolidation(Inspection& in, const ClusterView& view, core::TimePoint now) {
  ConsolidationPlan out;
  std::vector<api::corev1::PodDisruptionBudget> pdbs;
  if (auto listed = kube::Typed<api::corev1::PodDisruptionBudget>(in.client()).list("")) {
    pdbs = std::move(*listed);
  }
  const TypesByPool types = destinationTypes(view.pools(), in.cloud());
  PlannedCluster cluster(in.caches());
  while (out.decisions.size() < kMaxPlannedDecisions) {
    const ClusterView& current = *out.views.emplace_back(std::make_unique<ClusterView>(
        cluster.caches()));
    CandidateInput input;
    input.view = &current;
    input.caches = &cluster.caches();
    input.pdbs = &pdbs;
    input.types = &types;
    input.now = now;
    // No lastPodSeen: the claims' Consolidatable condition and lastPodEventTime tell.
    const ConsolidationCandidates candidates = findConsolidationCandidates(input);
    Consolidator consolidator(cluster.caches(), current, types, in.clock(), ConsolidationOptions{});
    const Room room = [&](const std::string& pool, const std::string& reason) {
      auto budget = poolBudget(current, pool, reason, now);
      return budget ? budget->room() : 0;
    };
    std::optional<Decision> decision = consolidator.decide(candidates, room);
    if (out.decisions.empty()) {
      for (const Unconsolidatable& u : candidates.excluded) {
        if (keptByProtection(u)) {
          out.kept.push_back(u);
        }
      }
      for (const Unconsolidatable& u : consolidator.unconsolidatable()) {
        out.kept.push_back(u);
      }
    }
    if (!decision) {
      break;
    }
    cluster.apply(*decision);
    out.decisions.push_back(std::move(*decision));
  }
  return out;
}

// What replaces a candidate, one line each: the simulation's new NodeClaims, or why none.
std::vector<std::string> replacementLines(const Simulation& simulation) {
  if (simulation.pods == 0) {
    return {"delete: empty"};
  }
  if (simulation.replacements.empty()) {
    return {fmt::format("delete: pods fit elsewhere ({} pods)", simulation.pods)};
  }
  std::vector<std::string> out;
  for (const std::string& summary : simulation.summaries) {
    out.push_back("replace with: " + summary);
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  return items.empty() ? std::string("<none>") : fmt::format("{}", fmt::join(items, ", "));
}

void printText(std::ostream& out, const std::vector<PlanEntry>& entries,
               const std::vector<const ClaimView*>& inFlight, const ConsolidationPlan& consolidation) {
  int disrupting = 0;
  for (const PlanEntry& entry : entries) {
    const Candidate& c = *entry.candidate;
    out << "nodeclaim " << c.view->claim->metadata.name << "  node " << nodeOf(*c.view)
        << "  nodepool " << c.view->pool << "  reason " << c.reason << "  why " << c.why << "\n";
    if (!entry.disrupt) {
      out << "  blocked  " << entry.blockedBy << "\n";
      continue;
    }
    ++disrupting;
    out << "  disrupt  budget: " << entry.budget << "\n";
    for (const std::string& line : replacementLines(*entry.simulation)) {
      out << "  " << line << "\n";
    }
  }
  for (const ClaimView* claim : inFlight) {
    out << "in flight: nodeclaim " << claim->claim->metadata.name << "  node " << nodeOf(*claim);
    if (!claim->command) {
      out << "  command record unreadable: left alone\n";
      continue;
    }
    out << "  phase " << claim->command->phase << "  reason " << claim->command->reason
        << "  replacements " << joined(claim->command->replacements) << "  budget "
        << claim->command->budget << "\n";
  }
  for (const Decision& d : consolidation.decisions) {
    out << "consolidation  " << methodLabel(d.method) << "  " << d.describe() << "\n";
    out << fmt::format("  saves ${:.4f}/h\n", d.savings());
    for (const auto& [pod, destination] : d.moves) {
      out << "  move " << pod << " -> " << destination << "\n";
    }
  }
  for (const Unconsolidatable& u : consolidation.kept) {
    out << "consolidation keeps nodeclaim " << u.claim << ": " << u.why << "\n";
  }
  out << "plan: " << disrupting << " to disrupt, " << entries.size() - disrupting << " blocked, "
      << inFlight.size() << " in flight";
  if (consolidation.decisions.size() > 1) {
    out << fmt::format(", {} consolidation decisions save ${:.4f}/h",
                       consolidation.decisions.size(), consolidation.savings());
  } else if (!consolidation.decisions.empty()) {
    out << fmt::format(", consolidation saves ${:.4f}/h", consolidation.savings());
  }
  out << "\n";
}

void printJson(std::ostream& out, const std::vector<PlanEntry>& entries,
               const std::vector<const ClaimView*>& inFlight, const ConsolidationPlan& consolidation) {
  api::Json doc = api::Json::object();
  doc["candidates"] = api::Json::array();
  int disrupting = 0;
  for (const PlanEntry& entry : entries) {
    const Candidate& c = *entry.candidate;
    api::Json item = {{"nodeClaim", c.view->claim->metadata.name},
                      {"node", c.view->node != nullptr ? c.view->node->metadata.name : ""},
                      {"nodePool", c.view->pool},
                      {"reason", c.reason},
                      {"why", c.why},
                      {"decision", entry.disrupt ? "disrupt" : "blocked"},
                      {"budget", entry.budget},
                      {"blockedBy", entry.blockedBy}};
    if (entry.simulation) {
      ++disrupting;
      item["replacement"] = {{"pods", entry.simulation->pods},
                             {"onExisting", entry.simulation->onExisting},
                             {"newNodeClaims", entry.simulation->summaries}};
    }
    doc["candidates"].push_back(std::move(item));
  }
  doc["inFlight"] = api::Json::array();
  for (const ClaimView* claim : inFlight) {
    api::Json item = {{"nodeClaim", claim->claim->metadata.name},
                      {"node", claim->node != nullptr ? claim->node->metadata.name : ""}};
    if (claim->command) {
      item["phase"] = claim->command->phase;
      item["reason"] = claim->command->reason;
      item["replacements"] = claim->command->replacements;
      item["budget"] = claim->command->budget;
    } else {
      item["unreadable"] = true;
    }
    doc["inFlight"].push_back(std::move(item));
  }
  // "decision" is the first of "decisions": the one the next pass takes.
  api::Json consolidating = {{"decision", nullptr},
                             {"decisions", api::Json::array()},
                             {"savingsPerHour", consolidation.savings()},
                             {"unconsolidatable", api::Json::array()}};
  for (const Decision& d : consolidation.decisions) {
    consolidating["decisions"].push_back({{"method", methodLabel(d.method)},
                                          {"reason", d.reason},
                                          {"nodeClaims", d.names()},
                                          {"replacementTypes", d.replacementTypes},
                                          {"currentPricePerHour", d.currentPrice},
                                          {"replacementPricePerHour", d.replacementPrice},
                                          {"savingsPerHour", d.savings()},
                                          {"moves", d.moves},
                                          {"description", d.describe()}});
  }
  if (!consolidation.decisions.empty()) {
    consolidating["decision"] = consolidating["decisions"][0];
  }
  for (const Unconsolidatable& u : consolidation.kept) {
    consolidating["unconsolidatable"].push_back({{"nodeClaim", u.claim}, {"why", u.why}});
  }
  doc["consolidation"] = std::move(consolidating);
  doc["summary"] = {{"disrupt", disrupting},
                    {"blocked", static_cast<int>(entries.size()) - disrupting},
                    {"inFlight", inFlight.size()}};
  out << doc.dump(2) << "\n";
}

int runPlan(const InspectFlags& flags, Context& ctx) {
  auto opened = Inspection::open(flags, ctx);
  if (!opened) {
    return opened.error();
  }
  Inspection& in = **opened;
  if (auto loaded = in.load(); !loaded) {
    ctx.err << "error: " << loaded.error().message() << "\n";
    return kExitFailed;
  }
  const ClusterView view(in.caches());
  const core::TimePoint now = in.clock().now();
  const Candidates found = findCandidates(
      view, now, [](const std::string&) -> std::optional<core::TimePoint> { return std::nullopt; });
  const std::vector<PlanEntry> entries = plan(in, view, found, now);
  std::vector<const ClaimView*> inFlight;
  for (const ClaimView& claim : view.claims()) {
    if (claim.command || claim.unreadableCommand) {
      inFlight.push_back(&claim);
    }
  }
  const ConsolidationPlan consolidation = planConsolidation(in, view, now);
  if (flags.output == "json") {
    printJson(ctx.out, entries, inFlight, consolidation);
  } else {
    printText(ctx.out, entries, inFlight, consolidation);
  }
  return kExitOk;
}

}  // namespace

void addDisruptionCommands(CLI::App& app, Context& ctx, Action& action) {
  CLI::App* disruption = app.add_subcommand("disruption", "Inspect disruption decisions");
  disruption->require_subcommand(1);
  auto flags = std::make_shared<InspectFlags>();
  CLI::App* planCommand = disruption->add_subcommand(
      "plan",
      "Show what disruption would do now, under which budget, and what replaces it "
      "(a dry run: writes nothing)");
  addInspectFlags(*planCommand, *flags);
  planCommand->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runPlan(*flags, ctx); }; });
}

}  // namespace nodewright::cmd
