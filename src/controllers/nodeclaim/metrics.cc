#include "controllers/nodeclaim/metrics.h"

#include <chrono>

#include "api/karpenter/well_known.h"
#include "controllers/telemetry/karpenter.h"

namespace nodewright::controllers::nodeclaim {
namespace {

// 1 s to about 34 min: registration takes a minute or two, a stuck one up to the 15 min TTL.
std::vector<double> durationBuckets() {
  return runtime::Registry::exponentialBuckets(1, 2, 12);
}

// Karpenter's node lifetime buckets: 15 min to 30 days.
std::vector<double> lifetimeBuckets() {
  constexpr double kMinute = 60, kHour = 3600, kDay = 86400;
  return {15 * kMinute, 30 * kMinute, 45 * kMinute, kHour,      2 * kHour,  4 * kHour, 6 * kHour,
          8 * kHour,    10 * kHour,   12 * kHour,   16 * kHour, 20 * kHour, kDay,      2 * kDay,
          3 * kDay,     5 * kDay,     10 * kDay,    15 * kDay,  20 * kDay,  25 * kDay, 30 * kDay};
}

double secondsBetween(const core::Time& from, core::TimePoint to) {
  return std::chrono::duration<double>(to - from.point()).count();
}

}  // namespace

Metrics::Metrics(runtime::Registry& registry)
    : launched(registry.counter("karpenter_nodeclaims_launched_total",
                                "Number of nodeclaims launched.", {"nodepool"})),
      registered(registry.counter("karpenter_nodeclaims_registered_total",
                                  "Number of nodeclaims registered.", {"nodepool"})),
      initialized(registry.counter("karpenter_nodeclaims_initialized_total",
                                   "Number of nodeclaims initialized.", {"nodepool"})),
      terminated(registry.counter("karpenter_nodeclaims_terminated_total",
                                  "Number of nodeclaims terminated in total by Karpenter. "
                                  "Labeled by the owning nodepool, capacity type, and zone.",
                                  {"nodepool", "capacity_type", "zone"})),
      terminationDuration(registry.histogram("karpenter_nodeclaims_termination_duration_seconds",
                                             "Duration of NodeClaim termination in seconds.",
                                             {"nodepool"},
                                             runtime::Registry::exponentialBuckets(1, 2, 12))),
      nodesCreated(registry.counter("karpenter_nodes_created_total",
                                    "Number of nodes created in total by Karpenter. Labeled by "
                                    "owning nodepool and zone.",
                                    {"nodepool", "zone"})),
      nodesTerminated(registry.counter("karpenter_nodes_terminated_total",
                                       "Number of nodes terminated in total by Karpenter. "
                                       "Labeled by owning nodepool and zone.",
                                       {"nodepool", "zone"})),
      nodeTerminationDuration(registry.summary(
          "karpenter_nodes_termination_duration_seconds",
          "The time taken between a node's deletion request and the removal of its finalizer",
          {"nodepool"}, telemetry::summaryObjectives())),
      nodeLifetime(registry.histogram("karpenter_nodes_lifetime_duration_seconds",
                                      "The lifetime duration of the nodes since creation.",
                                      {"nodepool"}, lifetimeBuckets())),
      registrationDuration(
          registry.histogram("karpenter_nodeclaims_registration_duration_seconds",
                             "Seconds from a nodeclaim's launch to its node's registration.",
                             {"nodepool"}, durationBuckets())),
      initializationDuration(registry.histogram(
          "karpenter_nodeclaims_initialization_duration_seconds",
          "Seconds from a nodeclaim's registration to its node's initialization.", {"nodepool"},
          durationBuckets())),
      evictionRequests(registry.counter("karpenter_pods_eviction_requests_total",
                                        "The total number of pod eviction requests made by "
                                        "Karpenter, labeled by response code",
                                        {"code"})) {}

void Metrics::countClaimTerminated(const api::karpenter::NodeClaim& claim, core::TimePoint now) {
  const std::string pool = telemetry::labelValue(claim.metadata, api::karpenter::kNodePoolLabel);
  terminated
      .with({pool, telemetry::labelValue(claim.metadata, "karpenter.sh/capacity-type"),
             telemetry::labelValue(claim.metadata, "topology.kubernetes.io/zone")})
      .inc();
  if (claim.metadata.deletionTimestamp) {
    terminationDuration.with({pool}).observe(
        secondsBetween(*claim.metadata.deletionTimestamp, now));
  }
}

void Metrics::countNodeTerminated(const api::corev1::Node& node, core::TimePoint now) {
  const std::string pool = telemetry::labelValue(node.metadata, api::karpenter::kNodePoolLabel);
  nodesTerminated.with({pool, telemetry::labelValue(node.metadata, "topology.kubernetes.io/zone")})
      .inc();
  // A node deleted by releaseNode itself was asked to go just now.
  nodeTerminationDuration.with({pool}).observe(
      node.metadata.deletionTimestamp ? secondsBetween(*node.metadata.deletionTimestamp, now) : 0);
  nodeLifetime.with({pool}).observe(secondsBetween(node.metadata.creationTimestamp, now));
}

}  // namespace nodewright::controllers::nodeclaim
