#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/common.h"

// karpenter.sh/v1 NodeClaim: one requested node, created from a NodePool's template.
namespace nodewright::api::karpenter {

// Resources the claim asks for (the pods it was launched for, plus daemonset overhead).
struct ResourceRequirements {
  std::map<std::string, core::Quantity> requests;
};
const reflect::StructSchema& describe(reflect::Tag<ResourceRequirements>);

struct NodeClaimSpec {
  std::vector<Taint> taints;
  std::vector<Taint> startupTaints;
  std::vector<NodeSelectorRequirementWithMinValues> requirements;
  ResourceRequirements resources;
  NodeClassReference nodeClassRef;
  std::optional<core::Duration> expireAfter;
  std::optional<core::Duration> terminationGracePeriod;
  std::optional<KubeletConfiguration> kubelet;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClaimSpec>);

struct NodeClaimStatus {
  std::string nodeName;
  std::string providerID;
  std::string imageID;
  std::map<std::string, core::Quantity> capacity;
  std::map<std::string, core::Quantity> allocatable;
  std::vector<Condition> conditions;
  std::optional<core::Time> lastPodEventTime;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClaimStatus>);

struct NodeClaim {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  NodeClaimSpec spec;
  NodeClaimStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClaim>);

}  // namespace nodewright::api::karpenter
