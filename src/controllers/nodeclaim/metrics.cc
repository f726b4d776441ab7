#include "controllers/nodeclaim/metrics.h"

namespace nodewright::controllers::nodeclaim {
namespace {

// 1 s to about 34 min: registration takes a minute or two, a stuck one up to the 15 min TTL.
std::vector<double> durationBuckets() {
  return runtime::Registry::exponentialBuckets(1, 2, 12);
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
                                  "Number of nodeclaims terminated.", {"nodepool"})),
      registrationDuration(
          registry.histogram("karpenter_nodeclaims_registration_duration_seconds",
                             "Seconds from a nodeclaim's launch to its node's registration.",
                             {"nodepool"}, durationBuckets())),
      initializationDuration(registry.histogram(
          "karpenter_nodeclaims_initialization_duration_seconds",
          "Seconds from a nodeclaim's registration to its node's initialization.", {"nodepool"},
          durationBuckets())),
      evictionRequests(registry.counter("karpenter_nodes_eviction_requests_total",
                                        "The number of eviction requests by response code.",
                                        {"code"})) {}

}  // namespace nodewright::controllers::nodeclaim
