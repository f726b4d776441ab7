#pragma once

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "core/time.h"
#include "runtime/metrics.h"

// The NodeClaim lifecycle's Prometheus metrics, under Karpenter's names.
namespace nodewright::controllers::nodeclaim {

struct Metrics {
  explicit Metrics(runtime::Registry& registry);

  // Label: nodepool (Karpenter's earlier names, kept for existing dashboards).
  runtime::Family<runtime::Counter>& launched;
  runtime::Family<runtime::Counter>& registered;
  runtime::Family<runtime::Counter>& initialized;
  // Labels: nodepool, capacity_type, zone.
  runtime::Family<runtime::Counter>& terminated;
  // Seconds from the claim's deletion to its finalizer's removal; label nodepool.
  runtime::Family<runtime::Histogram>& terminationDuration;
  // Labels: nodepool, zone; counted when a node registers and when its finalizer goes.
  runtime::Family<runtime::Counter>& nodesCreated;
  runtime::Family<runtime::Counter>& nodesTerminated;
  // Seconds from a node's deletion to its finalizer's removal (a summary); label nodepool.
  runtime::Family<runtime::Summary>& nodeTerminationDuration;
  // A node's age when its finalizer goes; label nodepool.
  runtime::Family<runtime::Histogram>& nodeLifetime;
  // Seconds from Launched to Registered, and from Registered to Initialized; label nodepool.
  runtime::Family<runtime::Histogram>& registrationDuration;
  runtime::Family<runtime::Histogram>& initializationDuration;
  // Eviction requests by HTTP code ("200" for an accepted one, as Karpenter reports it).
  runtime::Family<runtime::Counter>& evictionRequests;

  // Counts a claim whose finalizer was just removed at `now`.
  void countClaimTerminated(const api::karpenter::NodeClaim& claim, core::TimePoint now);
  // Counts a node whose finalizer was just removed at `now`.
  void countNodeTerminated(const api::corev1::Node& node, core::TimePoint now);
};

}  // namespace nodewright::controllers::nodeclaim
