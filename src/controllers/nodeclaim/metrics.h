#pragma once

#include "runtime/metrics.h"

// The NodeClaim lifecycle's Prometheus metrics, under Karpenter's names.
namespace nodewright::controllers::nodeclaim {

struct Metrics {
  explicit Metrics(runtime::Registry& registry);

  // Label: nodepool.
  runtime::Family<runtime::Counter>& launched;
  runtime::Family<runtime::Counter>& registered;
  runtime::Family<runtime::Counter>& initialized;
  runtime::Family<runtime::Counter>& terminated;
  // Seconds from Launched to Registered, and from Registered to Initialized; label nodepool.
  runtime::Family<runtime::Histogram>& registrationDuration;
  runtime::Family<runtime::Histogram>& initializationDuration;
  // Eviction requests by HTTP code ("200" for an accepted one, as Karpenter reports it).
  runtime::Family<runtime::Counter>& evictionRequests;
};

}  // namespace nodewright::controllers::nodeclaim
