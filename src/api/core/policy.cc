#include "api/core/policy.h"

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

void validatePdbSpec(const PodDisruptionBudgetSpec& spec, const FieldPath& path,
                     FieldErrors& errors) {
  // As upstream, neither may be set (the budget then never allows a disruption).
  if (spec.minAvailable && spec.maxUnavailable) {
    errors.push_back({path.child("minAvailable").str(),
                      fielderr::invalid(intOrStringJson(*spec.minAvailable),
                                        "minAvailable and maxUnavailable cannot be both set")});
  }
  if (spec.minAvailable) {
    validateIntOrPercent(*spec.minAvailable, path.child("minAvailable"), errors);
  }
  if (spec.maxUnavailable) {
    validateIntOrPercent(*spec.maxUnavailable, path.child("maxUnavailable"), errors);
  }
  checkOptionalEnum(spec.unhealthyPodEvictionPolicy, {"IfHealthyBudget", "AlwaysAllow"},
                    path.child("unhealthyPodEvictionPolicy"), errors);
}

}  // namespace

const StructSchema& describe(Tag<PodDisruptionBudgetSpec>) {
  static const StructSchema s =
      StructBuilder<PodDisruptionBudgetSpec>("PodDisruptionBudgetSpec",
                                             "How many selected pods may be disrupted at once.")
          .field<&PodDisruptionBudgetSpec::minAvailable>(
              "minAvailable",
              "Pods (number or %) that must stay available; excludes maxUnavailable.")
          .field<&PodDisruptionBudgetSpec::selector>("selector", "Selects the pods covered.")
          .field<&PodDisruptionBudgetSpec::maxUnavailable>(
              "maxUnavailable",
              "Pods (number or %) that may be unavailable; excludes minAvailable.")
          .field<&PodDisruptionBudgetSpec::unhealthyPodEvictionPolicy>(
              "unhealthyPodEvictionPolicy",
              "When unhealthy pods may be evicted: IfHealthyBudget (default) or AlwaysAllow.")
          .keepUnknownIn<&PodDisruptionBudgetSpec::unknown>()
          .validate(validatePdbSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<PodDisruptionBudgetStatus>) {
  static const StructSchema s =
      StructBuilder<PodDisruptionBudgetStatus>("PodDisruptionBudgetStatus",
                                               "The observed state of a PodDisruptionBudget.")
          .field<&PodDisruptionBudgetStatus::observedGeneration>(
              "observedGeneration", "The generation the controller last saw.")
          .field<&PodDisruptionBudgetStatus::disruptedPods>(
              "disruptedPods", "Pods being evicted, with when the eviction was admitted.")
          .field<&PodDisruptionBudgetStatus::disruptionsAllowed>(
              "disruptionsAllowed", "Pod disruptions currently allowed.")
          .field<&PodDisruptionBudgetStatus::currentHealthy>("currentHealthy", "Healthy pods now.")
          .field<&PodDisruptionBudgetStatus::desiredHealthy>("desiredHealthy",
                                                             "Fewest healthy pods wanted.")
          .field<&PodDisruptionBudgetStatus::expectedPods>("expectedPods",
                                                           "Pods counted by the budget.")
          .field<&PodDisruptionBudgetStatus::conditions>("conditions", "e.g. DisruptionAllowed.")
          .mapList({"type"})
          .keepUnknownIn<&PodDisruptionBudgetStatus::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<PodDisruptionBudget>) {
  static const StructSchema s = [] {
    StructBuilder<PodDisruptionBudget> b("PodDisruptionBudget",
                                         "Limits voluntary disruption of a set of pods.");
    withTypeMeta(b);
    return b.field<&PodDisruptionBudget::spec>("spec", "The desired budget.")
        .field<&PodDisruptionBudget::status>("status", "The observed state.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
