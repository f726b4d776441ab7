#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "api/reflect/diff.h"
#include "cloud/drift.h"
#include "cmd/command.h"
#include "cmd/inspect.h"
#include "controllers/disruption/drift_controller.h"
#include "controllers/nodeclaim/conditions.h"

// `nodewright drift explain NODECLAIM`: every drift check of one NodeClaim, in the order the
// drift controller runs them, each with pass or fail and the fields that changed since launch
// with their old and new values. It checks now, against the cluster and EC2 as they are; the
// claim's Drifted condition, if any, is what the controller last recorded.
namespace nodewright::cmd {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using controllers::disruption::DriftChecks;

struct DriftExplainFlags {
  InspectFlags inspect;
  std::string claim;
};

// "drifted: <reason>", "not drifted", or undetermined when the cloud could not be asked and
// nothing checked so far drifted.
std::string verdictOf(const DriftChecks& result) {
  if (const cloud::DriftCheck* first = cloud::firstDrift(result.checks); first != nullptr) {
    return "drifted: " + first->reason;
  }
  if (result.cloudError) {
    return "undetermined: the cloud's checks did not run";
  }
  return "not drifted";
}

void printText(std::ostream& out, const NodeClaim& claim, const std::string& pool,
               const DriftChecks& result) {
  const std::string& node = claim.status.nodeName;
  out << "nodeclaim " << claim.metadata.name << "  node " << (node.empty() ? "<none>" : node)
      << "  nodepool " << pool << "\n";
  if (const auto* recorded = controllers::nodeclaim::findCondition(claim.status.conditions,
                                                                   api::karpenter::kDrifted)) {
    out << "condition Drifted=" << recorded->status
        << (recorded->reason.empty() ? "" : " " + recorded->reason) << "\n";
  }
  for (const cloud::DriftCheck& check : result.checks) {
    // The detail says what was compared; the changed fields follow on their own lines.
    std::string detail = check.detail;
    if (detail.empty()) {
      detail = check.changes.empty() ? cloud::describe(check)
                                     : std::to_string(check.changes.size()) + " field(s) changed";
    }
    out << (check.drifted ? "FAIL " : "PASS ") << check.name << "  " << detail << "\n";
    for (const api::reflect::FieldDiff& change : check.changes) {
      out << "    " << api::reflect::describe(change) << "\n";
    }
  }
  if (result.cloudError) {
    out << "ERROR cloud  " << result.cloudError->message() << "\n";
  }
  out << verdictOf(result) << "\n";
}

void printJson(std::ostream& out, const NodeClaim& claim, const std::string& pool,
               const DriftChecks& result) {
  api::Json doc = api::Json::object();
  doc["nodeClaim"] = claim.metadata.name;
  doc["node"] = claim.status.nodeName;
  doc["nodePool"] = pool;
  doc["condition"] = nullptr;
  if (const auto* recorded = controllers::nodeclaim::findCondition(claim.status.conditions,
                                                                   api::karpenter::kDrifted)) {
    doc["condition"] = {
        {"status", recorded->status}, {"reason", recorded->reason}, {"message", recorded->message}};
  }
  doc["checks"] = api::Json::array();
  for (const cloud::DriftCheck& check : result.checks) {
    api::Json changes = api::Json::array();
    for (const api::reflect::FieldDiff& change : check.changes) {
      changes.push_back({{"path", change.path}, {"from", change.from}, {"to", change.to}});
    }
    doc["checks"].push_back({{"name", check.name},
                             {"drifted", check.drifted},
                             {"reason", check.reason},
                             {"detail", check.detail},
                             {"changes", std::move(changes)}});
  }
  doc["cloudError"] = result.cloudError ? api::Json(result.cloudError->message()) : api::Json();
  const cloud::DriftCheck* first = cloud::firstDrift(result.checks);
  doc["drifted"] = first != nullptr    ? api::Json(true)
                   : result.cloudError ? api::Json()
                                       : api::Json(false);
  doc["reason"] = first != nullptr ? first->reason : std::string();
  out << doc.dump(2) << "\n";
}

int runDriftExplain(const DriftExplainFlags& flags, Context& ctx) {
  auto opened = Inspection::open(flags.inspect, ctx);
  if (!opened) {
    return opened.error();
  }
  Inspection& in = **opened;
  auto claim = kube::Typed<NodeClaim>(in.client()).get("", flags.claim);
  if (!claim) {
    if (claim.error().is(kube::Reason::NotFound)) {
      ctx.err << "error: nodeclaim " << flags.claim << " not found\n";
    } else {
      ctx.err << "error: reading nodeclaim " << flags.claim << ": " << claim.error().describe()
              << "\n";
    }
    return kExitFailed;
  }
  const auto& labels = claim->metadata.labels;
  auto poolLabel = labels.find(api::karpenter::kNodePoolLabel);
  if (poolLabel == labels.end() || poolLabel->second.empty()) {
    ctx.err << "error: nodeclaim " << flags.claim << " has no " << api::karpenter::kNodePoolLabel
            << " label: no NodePool to compare it with\n";
    return kExitFailed;
  }
  const std::string& poolName = poolLabel->second;
  auto pool = kube::Typed<NodePool>(in.client()).get("", poolName);
  if (!pool) {
    if (pool.error().is(kube::Reason::NotFound)) {
      ctx.err << "error: nodepool " << poolName << " of nodeclaim " << flags.claim
              << " not found\n";
    } else {
      ctx.err << "error: reading nodepool " << poolName << ": " << pool.error().describe() << "\n";
    }
    return kExitFailed;
  }
  const DriftChecks result = controllers::disruption::checkDrift(
      *claim, *pool, in.cloud(), api::karpenter::defaultHashPolicy());
  if (flags.inspect.output == "json") {
    printJson(ctx.out, *claim, poolName, result);
  } else {
    printText(ctx.out, *claim, poolName, result);
  }
  return kExitOk;
}

}  // namespace

void addDriftCommands(CLI::App& app, Context& ctx, Action& action) {
  CLI::App* drift = app.add_subcommand("drift", "Inspect drift of nodes");
  drift->require_subcommand(1);
  auto flags = std::make_shared<DriftExplainFlags>();
  CLI::App* explain = drift->add_subcommand(
      "explain", "Run every drift check of a NodeClaim now and show each field that changed");
  explain->add_option("NODECLAIM", flags->claim, "The NodeClaim's name")->required();
  addInspectFlags(*explain, flags->inspect);
  explain->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runDriftExplain(*flags, ctx); }; });
}

}  // namespace nodewright::cmd
