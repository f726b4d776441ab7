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

#include "api/karpenter/hashing.h"
#include "cmd/command.h"
#include "cmd/inspect.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/replacements.h"

// `nodewright disruption plan`: a dry run of one disruption pass. It takes the candidates in
// the controller's order and decides each as the controller would now: the pool's budget room
// (each disruption planned before it uses one unit of its pool's room), then a scheduling
// simulation of its pods with the nodes planned before it gone. It lists the commands already
// in flight too. It writes nothing. Unlike the running controller it cannot know when an empty
// node last had pods, so it counts emptiness from initialization.
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
               const std::vector<const ClaimView*>& inFlight) {
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
  out << "plan: " << disrupting << " to disrupt, " << entries.size() - disrupting << " blocked, "
      << inFlight.size() << " in flight\n";
}

void printJson(std::ostream& out, const std::vector<PlanEntry>& entries,
               const std::vector<const ClaimView*>& inFlight) {
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
  if (flags.output == "json") {
    printJson(ctx.out, entries, inFlight);
  } else {
    printText(ctx.out, entries, inFlight);
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
