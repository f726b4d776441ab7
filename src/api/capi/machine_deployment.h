#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/machine_set.h"

// cluster.x-k8s.io/v1beta1 MachineDeployment: declarative rollouts of Machines through
// MachineSets, the way a Deployment rolls Pods through ReplicaSets.
namespace nodewright::api::capi {

struct MachineRollingUpdateDeployment {
  std::optional<IntOrString> maxUnavailable;
  std::optional<IntOrString> maxSurge;
  std::optional<std::string> deletePolicy;
};
const reflect::StructSchema& describe(reflect::Tag<MachineRollingUpdateDeployment>);

// How many unhealthy machines may be remediated at once.
struct RemediationStrategy {
  std::optional<IntOrString> maxInFlight;
};
const reflect::StructSchema& describe(reflect::Tag<RemediationStrategy>);

struct MachineDeploymentStrategy {
  std::string type;  // RollingUpdate | OnDelete
  std::optional<MachineRollingUpdateDeployment> rollingUpdate;
  std::optional<RemediationStrategy> remediation;
};
const reflect::StructSchema& describe(reflect::Tag<MachineDeploymentStrategy>);

struct MachineDeploymentSpec {
  std::string clusterName;
  std::optional<int32_t> replicas;
  std::optional<core::Time> rolloutAfter;
  LabelSelector selector;
  MachineTemplateSpec template_;  // JSON "template"
  std::optional<MachineNamingStrategy> machineNamingStrategy;
  std::optional<MachineDeploymentStrategy> strategy;
  std::optional<int32_t> minReadySeconds;
  std::optional<int32_t> revisionHistoryLimit;
  bool paused = false;
  std::optional<int32_t> progressDeadlineSeconds;
};
const reflect::StructSchema& describe(reflect::Tag<MachineDeploymentSpec>);

struct MachineDeploymentStatus {
  int64_t observedGeneration = 0;
  std::string selector;
  int32_t replicas = 0;
  int32_t updatedReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t unavailableReplicas = 0;
  std::string phase;
  std::vector<CapiCondition> conditions;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<MachineDeploymentStatus>);

struct MachineDeployment {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachineDeploymentSpec spec;
  MachineDeploymentStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<MachineDeployment>);

}  // namespace nodewright::api::capi
