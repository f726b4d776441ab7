#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "runtime/metrics.h"

// Facts Karpenter's metrics share (sigs.k8s.io/karpenter pkg/metrics/constants.go), so every
// controller reports under the same buckets and label spellings as upstream dashboards expect.
// Header-only: the controllers that report these link no telemetry library.
namespace nodewright::controllers::telemetry {

// Karpenter's DurationBuckets: 5 ms to 10 min, dense below 5 s.
inline std::vector<double> durationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
          0.8,   0.9,  1.0,   1.25, 1.5, 1.75, 2.0, 2.5,  3.0, 3.5,  4.0, 4.5,  5,   6,   7,
          8,     9,    10,    15,   20,  25,   30,  40,   50,  60,   120, 150,  300, 450, 600};
}

// Karpenter's SummaryObjectives: the quantiles every summary reports.
inline std::vector<double> summaryObjectives() {
  return {0.0, 0.5, 0.9, 0.99, 1.0};
}

// The value of label `key` on `meta`, or "" when it has none (as a Go map lookup reads).
inline std::string labelValue(const api::ObjectMeta& meta, std::string_view key) {
  auto it = meta.labels.find(std::string(key));
  return it == meta.labels.end() ? std::string() : it->second;
}

// A disruption reason as Karpenter labels it: lower case ("Drifted" -> "drifted").
inline std::string reasonLabel(std::string_view reason) {
  std::string out(reason);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// A resource name as a resource_type label: lower case, '-' as '_' ("ephemeral-storage" ->
// "ephemeral_storage").
inline std::string resourceTypeLabel(std::string_view resource) {
  std::string out = reasonLabel(resource);
  for (char& c : out) {
    if (c == '-') {
      c = '_';
    }
  }
  return out;
}

// karpenter_nodeclaims_created_total, which provisioning, disruption and static NodePools all
// count into: one registration, so the three agree on help and labels.
inline runtime::Family<runtime::Counter>& nodeClaimsCreated(runtime::Registry& metrics) {
  return metrics.counter(
      "karpenter_nodeclaims_created_total",
      "Number of nodeclaims created in total by Karpenter. Labeled by reason the nodeclaim "
      "was created, the owning nodepool, and if min values was relaxed for this nodeclaim.",
      {"reason", "nodepool", "min_values_relaxed"});
}

}  // namespace nodewright::controllers::telemetry
