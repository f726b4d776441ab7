#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/machine.h"
#include "api/capi/machine_set.h"
#include "api/kubeadm/kubeadm_config.h"

// controlplane.cluster.x-k8s.io/v1beta1 KubeadmControlPlane: the control-plane Machines of a
// Cluster, bootstrapped with kubeadm and rolled one at a time. Served with the scale
// subresource (spec.replicas / status.replicas / status.selector).
namespace nodewright::api::kubeadm {

struct KubeadmControlPlaneMachineTemplate {
  capi::TemplateMetadata metadata;
  ObjectReference infrastructureRef;
  std::vector<capi::MachineReadinessGate> readinessGates;
  std::optional<core::Duration> nodeDrainTimeout;
  std::optional<core::Duration> nodeVolumeDetachTimeout;
  std::optional<core::Duration> nodeDeletionTimeout;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmControlPlaneMachineTemplate>);

struct RolloutBefore {
  std::optional<int32_t> certificatesExpiryDays;
};
const reflect::StructSchema& describe(reflect::Tag<RolloutBefore>);

struct RollingUpdate {
  std::optional<IntOrString> maxSurge;
};
const reflect::StructSchema& describe(reflect::Tag<RollingUpdate>);

struct RolloutStrategy {
  std::string type;  // RollingUpdate
  std::optional<RollingUpdate> rollingUpdate;
};
const reflect::StructSchema& describe(reflect::Tag<RolloutStrategy>);

struct RemediationStrategy {
  std::optional<int32_t> maxRetry;
  std::optional<core::Duration> retryPeriod;
  std::optional<core::Duration> minHealthyPeriod;
};
const reflect::StructSchema& describe(reflect::Tag<RemediationStrategy>);

struct KubeadmControlPlaneSpec {
  std::optional<int32_t> replicas;
  std::string version;
  KubeadmControlPlaneMachineTemplate machineTemplate;
  KubeadmConfigSpec kubeadmConfigSpec;
  std::optional<RolloutBefore> rolloutBefore;
  std::optional<core::Time> rolloutAfter;
  std::optional<RolloutStrategy> rolloutStrategy;
  std::optional<RemediationStrategy> remediationStrategy;
  std::optional<capi::MachineNamingStrategy> machineNamingStrategy;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmControlPlaneSpec>);

struct LastRemediationStatus {
  std::string machine;
  core::Time timestamp;
  int32_t retryCount = 0;
};
const reflect::StructSchema& describe(reflect::Tag<LastRemediationStatus>);

struct KubeadmControlPlaneStatus {
  std::string selector;
  int32_t replicas = 0;
  std::optional<std::string> version;
  int32_t updatedReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t unavailableReplicas = 0;
  bool initialized = false;
  bool ready = false;
  std::string failureReason;
  std::optional<std::string> failureMessage;
  int64_t observedGeneration = 0;
  std::vector<capi::CapiCondition> conditions;
  std::optional<LastRemediationStatus> lastRemediation;
  Json versions;  // per-version machine counts, kept verbatim
  Json v1beta2;   // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmControlPlaneStatus>);

struct KubeadmControlPlane {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  KubeadmControlPlaneSpec spec;
  KubeadmControlPlaneStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmControlPlane>);

}  // namespace nodewright::api::kubeadm
