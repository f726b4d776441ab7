#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/reflect/schema.h"

// core/v1 Taint and Toleration. NodePool templates carry the same Taint, so these are strict
// (no unknown fields): they model every upstream field.
namespace nodewright::api::corev1 {

inline constexpr const char* kTaintEffectNoSchedule = "NoSchedule";
inline constexpr const char* kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr const char* kTaintEffectNoExecute = "NoExecute";
inline constexpr const char* kTolerationOpExists = "Exists";
inline constexpr const char* kTolerationOpEqual = "Equal";

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  core::Time timeAdded;

  bool operator==(const Taint&) const = default;
};
const reflect::StructSchema& describe(reflect::Tag<Taint>);

struct Toleration {
  std::string key;
  std::string operator_;  // empty means Equal
  std::string value;
  std::string effect;  // empty tolerates every effect
  std::optional<int64_t> tolerationSeconds;

  bool operator==(const Toleration&) const = default;
};
const reflect::StructSchema& describe(reflect::Tag<Toleration>);

// Toleration.ToleratesTaint: effect and key match when set (empty is a wildcard); Exists
// ignores the value, Equal (or empty) compares it; an unknown operator tolerates nothing.
bool toleratesTaint(const Toleration& toleration, const Taint& taint);

// True when any of `tolerations` tolerates `taint`.
bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint);

// Errors for taints that repeat a (key, effect) pair, as kube-apiserver reports them for a
// Node: "spec.taints[1]: Duplicate value: {...}: taints must be unique by key and effect pair".
void validateTaintsUnique(const std::vector<Taint>& taints, const FieldPath& path,
                          FieldErrors& errors);

}  // namespace nodewright::api::corev1
