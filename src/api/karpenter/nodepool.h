#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/common.h"

// karpenter.sh/v1 NodePool: a template for the nodes Karpenter launches plus the rules for
// disrupting them. Drift classes follow seed 002: limits, weight and disruption never drift.
namespace nodewright::api::karpenter {

// Labels and annotations copied onto every NodeClaim (and so every node) of a NodePool.
struct TemplateMetadata {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};
const reflect::StructSchema& describe(reflect::Tag<TemplateMetadata>);

struct NodeClaimTemplateSpec {
  std::vector<Taint> taints;
  std::vector<Taint> startupTaints;
  std::vector<NodeSelectorRequirementWithMinValues> requirements;
  NodeClassReference nodeClassRef;
  std::optional<core::Duration> expireAfter;             // "Never" allowed
  std::optional<core::Duration> terminationGracePeriod;  // no default: wait forever
  std::optional<KubeletConfiguration> kubelet;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClaimTemplateSpec>);

struct NodeClaimTemplate {
  TemplateMetadata metadata;
  NodeClaimTemplateSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClaimTemplate>);

// A cap on how many nodes may be disrupted at once, optionally only inside a cron window.
struct Budget {
  std::vector<std::string> reasons;  // Underutilized, Empty, Drifted; empty = all reasons
  std::string nodes;                 // "10%" or "5"
  std::string schedule;              // cron; needs duration
  std::optional<core::Duration> duration;
};
const reflect::StructSchema& describe(reflect::Tag<Budget>);

struct Disruption {
  std::string consolidationPolicy;                 // WhenEmpty | WhenEmptyOrUnderutilized
  std::optional<core::Duration> consolidateAfter;  // "Never" allowed
  std::vector<Budget> budgets;
};
const reflect::StructSchema& describe(reflect::Tag<Disruption>);

struct NodePoolSpec {
  NodeClaimTemplate template_;  // JSON "template"
  Disruption disruption;
  std::map<std::string, core::Quantity> limits;
  std::optional<int32_t> weight;
  // Set: a static NodePool that keeps exactly this many nodes whatever the pods ask for.
  std::optional<int64_t> replicas;
};
const reflect::StructSchema& describe(reflect::Tag<NodePoolSpec>);

// The rules upstream's CRD gives an update (CEL transition rules, oldSelf): a NodePool may not
// move between static (replicas set) and dynamic provisioning. Over the objects as sent.
FieldErrors validateNodePoolUpdate(const Json& before, const Json& after);

struct NodePoolStatus {
  std::map<std::string, core::Quantity> resources;
  std::vector<Condition> conditions;
  std::optional<int64_t> nodes;
};
const reflect::StructSchema& describe(reflect::Tag<NodePoolStatus>);

struct NodePool {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  NodePoolSpec spec;
  NodePoolStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<NodePool>);

// A static NodePool keeps spec.replicas nodes; pods neither grow nor shrink it.
inline bool isStatic(const NodePool& pool) {
  return pool.spec.replicas.has_value();
}

}  // namespace nodewright::api::karpenter
