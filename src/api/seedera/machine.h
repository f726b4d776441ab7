#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/seedera/common.h"

// karpenter.sh/v1alpha5 Machine, as Karpenter v0.31 served it: one requested node. Converted to
// karpenter.sh/v1 NodeClaim by src/api/conversion/nodeclaim_conversion.h.
namespace nodewright::api::seedera {

struct MachineResources {
  std::map<std::string, core::Quantity> requests;
};
const reflect::StructSchema& describe(reflect::Tag<MachineResources>);

struct MachineSpec {
  std::vector<Taint> taints;
  std::vector<Taint> startupTaints;
  std::vector<NodeSelectorRequirement> requirements;
  MachineResources resources;
  std::optional<KubeletConfiguration> kubelet;
  std::optional<ProviderRef> machineTemplateRef;
};
const reflect::StructSchema& describe(reflect::Tag<MachineSpec>);

struct MachineStatus {
  std::string nodeName;
  std::string providerID;
  std::map<std::string, core::Quantity> capacity;
  std::map<std::string, core::Quantity> allocatable;
  std::vector<Condition> conditions;
};
const reflect::StructSchema& describe(reflect::Tag<MachineStatus>);

struct Machine {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachineSpec spec;
  MachineStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Machine>);

}  // namespace nodewright::api::seedera
