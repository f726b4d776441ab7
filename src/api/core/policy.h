#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/reflect/int_or_string.h"
#include "api/reflect/schema.h"

// policy/v1 PodDisruptionBudget, which node drains respect when evicting pods.
namespace nodewright::api::corev1 {

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> minAvailable;
  std::optional<LabelSelector> selector;
  std::optional<IntOrString> maxUnavailable;
  std::string unhealthyPodEvictionPolicy;  // IfHealthyBudget or AlwaysAllow
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodDisruptionBudgetSpec>);

struct PodDisruptionBudgetStatus {
  int64_t observedGeneration = 0;
  std::map<std::string, core::Time> disruptedPods;
  int32_t disruptionsAllowed = 0;
  int32_t currentHealthy = 0;
  int32_t desiredHealthy = 0;
  int32_t expectedPods = 0;
  std::vector<Condition> conditions;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodDisruptionBudgetStatus>);

struct PodDisruptionBudget {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<PodDisruptionBudget>);

}  // namespace nodewright::api::corev1
