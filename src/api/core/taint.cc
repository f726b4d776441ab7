#include "api/core/taint.h"

#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/core/validation.h"
#include "api/labels.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

const std::vector<std::string>& taintEffects() {
  static const std::vector<std::string> effects = {
      kTaintEffectNoSchedule, kTaintEffectPreferNoSchedule, kTaintEffectNoExecute};
  return effects;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  return fmt::format("{}", fmt::join(parts, sep));
}

void validateTaint(const Taint& t, const FieldPath& path, FieldErrors& errors) {
  if (!t.key.empty()) {
    validateLabelName(t.key, path.child("key"), errors);
  }
  for (const std::string& msg : labelValueErrors(t.value)) {
    errors.push_back({path.child("value").str(), invalidText(t.value, msg)});
  }
}

void validateToleration(const Toleration& t, const FieldPath& path, FieldErrors& errors) {
  const FieldPath op = path.child("operator");
  if (!t.key.empty()) {
    validateLabelName(t.key, path.child("key"), errors);
  } else if (t.operator_ != kTolerationOpExists) {
    errors.push_back({op.str(), invalidText(t.operator_,
                                            "operator must be Exists when `key` is empty, "
                                            "which means \"match all values and all keys\"")});
  }
  if (t.tolerationSeconds && t.effect != kTaintEffectNoExecute) {
    errors.push_back(
        {path.child("effect").str(),
         invalidText(t.effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")});
  }
  if (t.operator_.empty() || t.operator_ == kTolerationOpEqual) {
    // kube-apiserver reports a bad value under `operator`, as here.
    std::vector<std::string> msgs = labelValueErrors(t.value);
    if (!msgs.empty()) {
      errors.push_back({op.str(), invalidText(t.value, join(msgs, ";"))});
    }
  } else if (t.operator_ == kTolerationOpExists) {
    if (!t.value.empty()) {
      errors.push_back(
          {op.str(), invalidText(t.operator_, "value must be empty when `operator` is 'Exists'")});
    }
  } else {
    errors.push_back({op.str(), fielderr::unsupported(Json(t.operator_),
                                                      {kTolerationOpEqual, kTolerationOpExists})});
  }
  checkOptionalEnum(t.effect, taintEffects(), path.child("effect"), errors);
}

}  // namespace

const StructSchema& describe(Tag<Taint>) {
  static const StructSchema s =
      StructBuilder<Taint>("Taint",
                           "A node taint: pods that do not tolerate it are repelled from the node.")
          .field<&Taint::key>("key", "The taint key to be applied to a node.")
          .required()
          .field<&Taint::value>("value", "The taint value corresponding to the taint key.")
          .field<&Taint::effect>("effect",
                                 "The effect of the taint on pods that do not tolerate it: "
                                 "NoSchedule, PreferNoSchedule or NoExecute.")
          .required()
          .enums(taintEffects())
          .field<&Taint::timeAdded>("timeAdded",
                                    "When a NoExecute taint was added; set by the system.")
          .validate(validateTaint)
          .build();
  return s;
}

const StructSchema& describe(Tag<Toleration>) {
  static const StructSchema s =
      StructBuilder<Toleration>(
          "Toleration", "Lets a pod schedule onto (or stay on) nodes with a matching taint.")
          .field<&Toleration::key>("key",
                                   "The taint key the toleration applies to; empty matches all "
                                   "keys (operator must then be Exists).")
          .field<&Toleration::operator_>("operator",
                                         "Relationship of key to value: Exists or Equal (the "
                                         "default).")
          .field<&Toleration::value>("value",
                                     "The taint value the toleration matches; empty with Exists.")
          .field<&Toleration::effect>("effect",
                                      "The taint effect to match; empty matches all effects.")
          .field<&Toleration::tolerationSeconds>(
              "tolerationSeconds",
              "How long a NoExecute taint is tolerated before eviction; unset means forever.")
          .validate(validateToleration)
          .build();
  return s;
}

bool toleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) {
    return false;
  }
  if (toleration.operator_.empty() || toleration.operator_ == kTolerationOpEqual) {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == kTolerationOpExists;
}

bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (toleratesTaint(t, taint)) {
      return true;
    }
  }
  return false;
}

void validateTaintsUnique(const std::vector<Taint>& taints, const FieldPath& path,
                          FieldErrors& errors) {
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < taints.size(); ++i) {
    const Taint& t = taints[i];
    if (!seen.emplace(t.key, t.effect).second) {
      errors.push_back(
          {path.index(i).str(), fielderr::duplicate(Json{{"key", t.key}, {"effect", t.effect}}) +
                                    ": taints must be unique by key and effect pair"});
    }
  }
}

}  // namespace nodewright::api::corev1
