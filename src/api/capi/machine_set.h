#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/machine.h"

// cluster.x-k8s.io/v1beta1 MachineSet: keeps a number of identical Machines running. Usually
// owned by a MachineDeployment, which rolls from one MachineSet to the next.
namespace nodewright::api::capi {

// How generated Machine names are built, e.g. "{{ .machineSet.name }}-{{ .random }}".
struct MachineNamingStrategy {
  std::string template_;  // JSON "template"
};
const reflect::StructSchema& describe(reflect::Tag<MachineNamingStrategy>);

struct MachineSetSpec {
  std::string clusterName;
  std::optional<int32_t> replicas;
  int32_t minReadySeconds = 0;
  std::optional<std::string> deletePolicy;
  LabelSelector selector;
  MachineTemplateSpec template_;  // JSON "template"
  std::optional<MachineNamingStrategy> machineNamingStrategy;
};
const reflect::StructSchema& describe(reflect::Tag<MachineSetSpec>);

struct MachineSetStatus {
  std::string selector;
  int32_t replicas = 0;
  int32_t fullyLabeledReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int64_t observedGeneration = 0;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::vector<CapiCondition> conditions;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<MachineSetStatus>);

struct MachineSet {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachineSetSpec spec;
  MachineSetStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<MachineSet>);

}  // namespace nodewright::api::capi
