#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/seedera/common.h"

// karpenter.sh/v1alpha5 Provisioner, as Karpenter v0.31 served it, plus the spec.template form
// that seed 002 proposes (requirements, labels, taints, annotations, startupTaints and
// providerRef nested under spec.template). Either form is accepted, field by field; setting
// the same field in both is an error naming both paths. Converted to karpenter.sh/v1 NodePool
// by src/api/conversion/nodepool_conversion.h.
namespace nodewright::api::seedera {

// Seed 002's ProvisionerSpec.template: the node-shaping fields, grouped like a pod template.
struct ProvisionerTemplate {
  std::vector<NodeSelectorRequirement> requirements;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  std::map<std::string, std::string> annotations;
  std::vector<Taint> startupTaints;
  std::optional<ProviderRef> providerRef;
};
const reflect::StructSchema& describe(reflect::Tag<ProvisionerTemplate>);

// enabled is a *bool upstream whose nil and false mean the same (no consolidation); modelled
// as a plain bool so the two spellings have one canonical encoding.
struct Consolidation {
  bool enabled = false;
};
const reflect::StructSchema& describe(reflect::Tag<Consolidation>);

struct Limits {
  std::map<std::string, core::Quantity> resources;
};
const reflect::StructSchema& describe(reflect::Tag<Limits>);

struct ProvisionerSpec {
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  std::vector<Taint> startupTaints;
  std::vector<NodeSelectorRequirement> requirements;
  std::optional<KubeletConfiguration> kubeletConfiguration;
  Json provider;  // inline provider (runtime.RawExtension), kept verbatim
  std::optional<ProviderRef> providerRef;
  std::optional<int64_t> ttlSecondsAfterEmpty;
  std::optional<int64_t> ttlSecondsUntilExpired;
  Limits limits;
  std::optional<int32_t> weight;
  Consolidation consolidation;
  std::optional<ProvisionerTemplate> template_;  // JSON "template" (seed 002)
};
const reflect::StructSchema& describe(reflect::Tag<ProvisionerSpec>);

struct ProvisionerStatus {
  std::optional<core::Time> lastScaleTime;
  std::vector<Condition> conditions;
  std::map<std::string, core::Quantity> resources;
};
const reflect::StructSchema& describe(reflect::Tag<ProvisionerStatus>);

struct Provisioner {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ProvisionerSpec spec;
  ProvisionerStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Provisioner>);

}  // namespace nodewright::api::seedera
