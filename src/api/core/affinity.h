#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/reflect/schema.h"

// core/v1 scheduling constraints of a pod: node affinity, pod (anti-)affinity and topology
// spread. Pods are the only users, so each struct keeps fields it does not model (`unknown`).
namespace nodewright::api::corev1 {

// A field selector requirement of a node selector term. Only metadata.name is defined upstream.
struct NodeFieldSelectorRequirement {
  std::string key;
  std::string operator_;  // In or NotIn
  std::vector<std::string> values;
};
const reflect::StructSchema& describe(reflect::Tag<NodeFieldSelectorRequirement>);

// The requirements of a term are ANDed; a term with none matches no node.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> matchExpressions;
  std::vector<NodeFieldSelectorRequirement> matchFields;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelectorTerm>);

// The terms are ORed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> nodeSelectorTerms;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelector>);

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PreferredSchedulingTerm>);

struct NodeAffinity {
  std::optional<NodeSelector> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<PreferredSchedulingTerm> preferredDuringSchedulingIgnoredDuringExecution;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NodeAffinity>);

struct PodAffinityTerm {
  std::optional<LabelSelector> labelSelector;
  std::vector<std::string> namespaces;
  std::string topologyKey;
  std::optional<LabelSelector> namespaceSelector;
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodAffinityTerm>);

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm podAffinityTerm;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<WeightedPodAffinityTerm>);

struct PodAffinity {
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodAffinity>);

// Same shape as PodAffinity; a separate type as upstream, so docs and explain name it.
struct PodAntiAffinity {
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodAntiAffinity>);

struct Affinity {
  std::optional<NodeAffinity> nodeAffinity;
  std::optional<PodAffinity> podAffinity;
  std::optional<PodAntiAffinity> podAntiAffinity;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<Affinity>);

struct TopologySpreadConstraint {
  int32_t maxSkew = 0;
  std::string topologyKey;
  std::string whenUnsatisfiable;  // DoNotSchedule or ScheduleAnyway
  std::optional<LabelSelector> labelSelector;
  std::optional<int32_t> minDomains;
  std::string nodeAffinityPolicy;  // Honor or Ignore; empty means Honor
  std::string nodeTaintsPolicy;    // Honor or Ignore; empty means Ignore
  std::vector<std::string> matchLabelKeys;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<TopologySpreadConstraint>);

// Whether a node with these labels and name satisfies the term (all requirements, at least
// one of them) or the selector (any term), as the scheduler's NodeAffinity plugin decides.
bool matches(const NodeSelectorTerm& term, const Labels& nodeLabels, std::string_view nodeName);
bool matches(const NodeSelector& selector, const Labels& nodeLabels, std::string_view nodeName);

}  // namespace nodewright::api::corev1
