#include "api/core/affinity.h"

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kNodeFieldName = "metadata.name";

void validateNodeFieldRequirement(const NodeFieldSelectorRequirement& r, const FieldPath& path,
                                  FieldErrors& errors) {
  if (r.operator_ == kOpIn || r.operator_ == kOpNotIn) {
    if (r.values.size() != 1) {
      errors.push_back({path.child("values").str(),
                        requiredWith("must be only one value when `operator` is 'In' or "
                                     "'NotIn' for node field selector")});
    }
  } else {
    errors.push_back(
        {path.child("operator").str(), invalidText(r.operator_, "not a valid selector operator")});
  }
  if (r.key != kNodeFieldName) {
    errors.push_back(
        {path.child("key").str(), invalidText(r.key, "not a valid field selector key")});
  }
}

void validatePodAffinityTerm(const PodAffinityTerm& t, const FieldPath& path, FieldErrors& errors) {
  if (t.topologyKey.empty()) {
    errors.push_back({path.child("topologyKey").str(), requiredWith("can not be empty")});
  } else {
    validateLabelName(t.topologyKey, path.child("topologyKey"), errors);
  }
  for (size_t i = 0; i < t.namespaces.size(); ++i) {
    for (const std::string& msg : dns1123LabelErrors(t.namespaces[i])) {
      errors.push_back(
          {path.child("namespaces").index(i).str(), invalidText(t.namespaces[i], msg)});
    }
  }
}

template <class T>
StructSchema describePodAffinity(std::string name, std::string doc) {
  return StructBuilder<T>(std::move(name), std::move(doc))
      .template field<&T::requiredDuringSchedulingIgnoredDuringExecution>(
          "requiredDuringSchedulingIgnoredDuringExecution",
          "Terms every one of which must hold when the pod is scheduled.")
      .template field<&T::preferredDuringSchedulingIgnoredDuringExecution>(
          "preferredDuringSchedulingIgnoredDuringExecution",
          "Weighted terms the scheduler prefers to satisfy.")
      .template keepUnknownIn<&T::unknown>()
      .build();
}

}  // namespace

const StructSchema& describe(Tag<NodeFieldSelectorRequirement>) {
  static const StructSchema s =
      StructBuilder<NodeFieldSelectorRequirement>(
          "NodeFieldSelectorRequirement", "A node field selector requirement (metadata.name only).")
          .field<&NodeFieldSelectorRequirement::key>("key", "The field: metadata.name.")
          .field<&NodeFieldSelectorRequirement::operator_>("operator", "In or NotIn.")
          .field<&NodeFieldSelectorRequirement::values>("values", "Exactly one value.")
          .validate(validateNodeFieldRequirement)
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeSelectorTerm>) {
  static const StructSchema s =
      StructBuilder<NodeSelectorTerm>("NodeSelectorTerm",
                                      "Requirements on node labels and fields, ANDed; an empty "
                                      "term matches no node.")
          .field<&NodeSelectorTerm::matchExpressions>("matchExpressions",
                                                      "Requirements on the node's labels.")
          .field<&NodeSelectorTerm::matchFields>("matchFields",
                                                 "Requirements on the node's fields.")
          .keepUnknownIn<&NodeSelectorTerm::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeSelector>) {
  static const StructSchema s =
      StructBuilder<NodeSelector>("NodeSelector", "Node selector terms, ORed.")
          .field<&NodeSelector::nodeSelectorTerms>("nodeSelectorTerms",
                                                   "The terms; a node must match one of them.")
          .keepUnknownIn<&NodeSelector::unknown>()
          .validate([](const NodeSelector& sel, const FieldPath& path, FieldErrors& errors) {
            if (sel.nodeSelectorTerms.empty()) {
              errors.push_back({path.child("nodeSelectorTerms").str(),
                                requiredWith("must have at least one node selector term")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<PreferredSchedulingTerm>) {
  static const StructSchema s =
      StructBuilder<PreferredSchedulingTerm>("PreferredSchedulingTerm",
                                             "A node selector term with a preference weight.")
          .field<&PreferredSchedulingTerm::weight>("weight", "Weight in the range 1-100.")
          .min(1)
          .max(100)
          .field<&PreferredSchedulingTerm::preference>("preference", "The node selector term.")
          .required()
          .keepUnknownIn<&PreferredSchedulingTerm::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeAffinity>) {
  static const StructSchema s =
      StructBuilder<NodeAffinity>("NodeAffinity", "Node affinity scheduling rules for the pod.")
          .field<&NodeAffinity::requiredDuringSchedulingIgnoredDuringExecution>(
              "requiredDuringSchedulingIgnoredDuringExecution",
              "Nodes the pod may be scheduled onto; not re-checked while it runs.")
          .field<&NodeAffinity::preferredDuringSchedulingIgnoredDuringExecution>(
              "preferredDuringSchedulingIgnoredDuringExecution",
              "Weighted node preferences the scheduler tries to satisfy.")
          .keepUnknownIn<&NodeAffinity::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<PodAffinityTerm>) {
  static const StructSchema s =
      StructBuilder<PodAffinityTerm>("PodAffinityTerm",
                                     "Pods (by label and namespace) this pod must be co-located "
                                     "with, or away from, within a topology domain.")
          .field<&PodAffinityTerm::labelSelector>("labelSelector", "Selects the other pods.")
          .field<&PodAffinityTerm::namespaces>(
              "namespaces", "Namespaces of the other pods; empty means this pod's namespace.")
          .field<&PodAffinityTerm::topologyKey>(
              "topologyKey", "Node label whose value defines the topology domain.")
          .field<&PodAffinityTerm::namespaceSelector>(
              "namespaceSelector", "Selects the namespaces of the other pods by label.")
          .field<&PodAffinityTerm::matchLabelKeys>(
              "matchLabelKeys", "Label keys whose values from this pod are added to labelSelector.")
          .field<&PodAffinityTerm::mismatchLabelKeys>(
              "mismatchLabelKeys",
              "Label keys whose values from this pod are excluded by labelSelector.")
          .keepUnknownIn<&PodAffinityTerm::unknown>()
          .validate(validatePodAffinityTerm)
          .build();
  return s;
}

const StructSchema& describe(Tag<WeightedPodAffinityTerm>) {
  static const StructSchema s =
      StructBuilder<WeightedPodAffinityTerm>("WeightedPodAffinityTerm",
                                             "A pod affinity term with a preference weight.")
          .field<&WeightedPodAffinityTerm::weight>("weight", "Weight in the range 1-100.")
          .min(1)
          .max(100)
          .field<&WeightedPodAffinityTerm::podAffinityTerm>("podAffinityTerm", "The term.")
          .required()
          .keepUnknownIn<&WeightedPodAffinityTerm::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<PodAffinity>) {
  static const StructSchema s = describePodAffinity<PodAffinity>(
      "PodAffinity", "Co-locate the pod with other pods in the same topology domain.");
  return s;
}

const StructSchema& describe(Tag<PodAntiAffinity>) {
  static const StructSchema s = describePodAffinity<PodAntiAffinity>(
      "PodAntiAffinity", "Keep the pod away from other pods in the same topology domain.");
  return s;
}

const StructSchema& describe(Tag<Affinity>) {
  static const StructSchema s =
      StructBuilder<Affinity>("Affinity", "The pod's scheduling constraints.")
          .field<&Affinity::nodeAffinity>("nodeAffinity", "Node affinity scheduling rules.")
          .field<&Affinity::podAffinity>("podAffinity", "Pod affinity scheduling rules.")
          .field<&Affinity::podAntiAffinity>("podAntiAffinity",
                                             "Pod anti-affinity scheduling rules.")
          .keepUnknownIn<&Affinity::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<TopologySpreadConstraint>) {
  static const StructSchema s =
      StructBuilder<TopologySpreadConstraint>(
          "TopologySpreadConstraint", "How to spread matching pods across a topology domain.")
          .field<&TopologySpreadConstraint::maxSkew>(
              "maxSkew", "The largest allowed difference in matching pods between domains.")
          .min(1)
          .field<&TopologySpreadConstraint::topologyKey>(
              "topologyKey", "Node label whose value defines the topology domain.")
          .required()
          .field<&TopologySpreadConstraint::whenUnsatisfiable>(
              "whenUnsatisfiable",
              "What to do when the constraint cannot be met: DoNotSchedule or ScheduleAnyway.")
          .required()
          .enums({"DoNotSchedule", "ScheduleAnyway"})
          .field<&TopologySpreadConstraint::labelSelector>("labelSelector",
                                                           "Selects the pods that are counted.")
          .field<&TopologySpreadConstraint::minDomains>(
              "minDomains", "Minimum number of eligible domains (DoNotSchedule only).")
          .min(1)
          .field<&TopologySpreadConstraint::nodeAffinityPolicy>(
              "nodeAffinityPolicy",
              "Whether the pod's node affinity limits the domains: Honor (default) or Ignore.")
          .field<&TopologySpreadConstraint::nodeTaintsPolicy>(
              "nodeTaintsPolicy",
              "Whether node taints limit the domains: Honor or Ignore (default).")
          .field<&TopologySpreadConstraint::matchLabelKeys>(
              "matchLabelKeys", "Label keys whose values from this pod are added to labelSelector.")
          .keepUnknownIn<&TopologySpreadConstraint::unknown>()
          .validate(
              [](const TopologySpreadConstraint& c, const FieldPath& path, FieldErrors& errors) {
                if (!c.topologyKey.empty()) {
                  validateLabelName(c.topologyKey, path.child("topologyKey"), errors);
                }
                if (c.minDomains && c.whenUnsatisfiable == "ScheduleAnyway") {
                  errors.push_back({path.child("minDomains").str(),
                                    fielderr::invalid(Json(*c.minDomains),
                                                      "can only use minDomains if "
                                                      "whenUnsatisfiable=DoNotSchedule, not "
                                                      "ScheduleAnyway")});
                }
                checkOptionalEnum(c.nodeAffinityPolicy, {"Honor", "Ignore"},
                                  path.child("nodeAffinityPolicy"), errors);
                checkOptionalEnum(c.nodeTaintsPolicy, {"Honor", "Ignore"},
                                  path.child("nodeTaintsPolicy"), errors);
              })
          .build();
  return s;
}

bool matches(const NodeSelectorTerm& term, const Labels& nodeLabels, std::string_view nodeName) {
  if (term.matchExpressions.empty() && term.matchFields.empty()) {
    return false;
  }
  for (const NodeSelectorRequirement& r : term.matchExpressions) {
    if (!api::matches(r, nodeLabels)) {
      return false;
    }
  }
  const Labels fields = {{kNodeFieldName, std::string(nodeName)}};
  for (const NodeFieldSelectorRequirement& r : term.matchFields) {
    bool supported = r.key == kNodeFieldName && (r.operator_ == kOpIn || r.operator_ == kOpNotIn);
    if (!supported || !api::matches(r.key, r.operator_, r.values, fields)) {
      return false;
    }
  }
  return true;
}

bool matches(const NodeSelector& selector, const Labels& nodeLabels, std::string_view nodeName) {
  for (const NodeSelectorTerm& term : selector.nodeSelectorTerms) {
    if (matches(term, nodeLabels, nodeName)) {
      return true;
    }
  }
  return false;
}

}  // namespace nodewright::api::corev1
