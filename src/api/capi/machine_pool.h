#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/machine.h"

// cluster.x-k8s.io/v1beta1 MachinePool: a group of machines the infrastructure provider scales
// as one (for Azure: a virtual machine scale set behind an AzureMachinePool).
namespace nodewright::api::capi {

struct MachinePoolSpec {
  std::string clusterName;
  std::optional<int32_t> replicas;
  MachineTemplateSpec template_;  // JSON "template"
  std::optional<int32_t> minReadySeconds;
  std::vector<std::string> providerIDList;
  std::vector<std::string> failureDomains;
};
const reflect::StructSchema& describe(reflect::Tag<MachinePoolSpec>);

struct MachinePoolStatus {
  std::vector<ObjectReference> nodeRefs;
  int32_t replicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t unavailableReplicas = 0;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::string phase;
  bool bootstrapReady = false;
  bool infrastructureReady = false;
  int64_t observedGeneration = 0;
  std::vector<CapiCondition> conditions;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<MachinePoolStatus>);

struct MachinePool {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachinePoolSpec spec;
  MachinePoolStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<MachinePool>);

}  // namespace nodewright::api::capi
