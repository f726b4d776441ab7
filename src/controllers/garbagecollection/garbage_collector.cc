#include "controllers/garbagecollection/garbage_collector.h"

#include <map>
#include <optional>
#include <set>

#include "core/log.h"

namespace nodewright::controllers::garbagecollection {
namespace {

using api::karpenter::NodeClaim;
using runtime::Result;

// When the claim's Launched condition turned true, if it did.
std::optional<core::TimePoint> launchedAt(const NodeClaim& claim) {
  for (const auto& c : claim.status.conditions) {
    if (c.type == "Launched" && c.status == "True") {
      return c.lastTransitionTime.point();
    }
  }
  return std::nullopt;
}

}  // namespace

GarbageCollector::GarbageCollector(kube::Client& client, cloud::CloudProvider& cloud,
                                   const core::Clock& clock, runtime::Registry& metrics,
                                   GarbageCollectorOptions options)
    : nodeClaims_(client),
      cloud_(cloud),
      clock_(clock),
      options_(options),
      collected_(metrics.counter("karpenter_garbage_collected_total",
                                 "Machines terminated and NodeClaims deleted by garbage "
                                 "collection, by kind.",
                                 {"kind"})) {}

runtime::Controller& GarbageCollector::setup(runtime::Manager& manager) {
  claims_ = &manager.informerFor<NodeClaim>().cache();
  runtime::ControllerOptions options;
  options.workers = 1;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.enqueue({"", kName});
  return controller;
}

runtime::Outcome GarbageCollector::reconcile(const runtime::Request&, runtime::Context& context) {
  auto summary = collect(*claims_, context);
  if (!summary) {
    return core::fail(summary.error());
  }
  return Result::after(options_.every);
}

core::Result<CollectionSummary> GarbageCollector::collect(const kube::Cache& claims,
                                                          runtime::Context& context) {
  auto machines = cloud_.list();
  if (!machines) {
    return core::fail(machines.error());
  }
  std::set<std::string> names;
  std::map<std::string, NodeClaim> byProviderID;
  for (const api::Object& object : claims.list()) {
    if (const auto* claim = object.as<NodeClaim>()) {
      names.insert(claim->metadata.name);
      if (!claim->status.providerID.empty()) {
        byProviderID[claim->status.providerID] = *claim;
      }
    }
  }
  CollectionSummary summary;
  const auto now = clock_.now();
  std::set<std::string> live;
  for (const cloud::Machine& machine : *machines) {
    live.insert(machine.providerID);
    const bool accounted = byProviderID.count(machine.providerID) > 0 ||
                           (!machine.nodeClaimName.empty() && names.count(machine.nodeClaimName));
    if (accounted || now - machine.launchTime < options_.grace || !context.leading()) {
      continue;
    }
    if (auto removed = cloud_.remove(machine.providerID);
        !removed && !removed.error().is(core::Code::NotFound)) {
      core::logWarn(context.log(), "terminating a machine failed",
                    {{"provider-id", machine.providerID}, {"error", removed.error()}});
      continue;
    }
    core::logInfo(
        context.log(), "terminated a machine no NodeClaim accounts for",
        {{"provider-id", machine.providerID},
         {"nodeclaim", machine.nodeClaimName.empty() ? "unknown" : machine.nodeClaimName}});
    collected_.with({"machine"}).inc();
    summary.terminatedMachines.push_back(machine.providerID);
  }
  for (const auto& [providerID, claim] : byProviderID) {
    const auto launched = launchedAt(claim);
    if (live.count(providerID) || claim.metadata.deletionTimestamp || !launched ||
        now - *launched < options_.grace) {
      continue;
    }
    // list() may lag a launch; only the machine itself saying it is gone counts.
    auto machine = cloud_.get(providerID);
    if (machine || !machine.error().is(core::Code::NotFound) || !context.leading()) {
      continue;
    }
    kube::DeleteOptions options;
    options.preconditionUid = claim.metadata.uid;  // the cached claim, not a newer namesake
    auto removed = nodeClaims_.remove("", claim.metadata.name, options);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      core::logWarn(context.log(), "deleting a nodeclaim failed",
                    {{"nodeclaim", claim.metadata.name}, {"error", removed.error().describe()}});
      continue;
    }
    core::logInfo(context.log(), "deleted a nodeclaim whose machine is gone",
                  {{"nodeclaim", claim.metadata.name}, {"provider-id", providerID}});
    collected_.with({"nodeclaim"}).inc();
    summary.deletedNodeClaims.push_back(claim.metadata.name);
  }
  return summary;
}

}  // namespace nodewright::controllers::garbagecollection
