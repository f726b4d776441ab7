#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "api/labels.h"
#include "api/meta.h"
#include "api/reflect/int_or_string.h"
#include "api/reflect/schema.h"

// apps/v1 Deployment, ReplicaSet and DaemonSet: enough for the embedded API server to serve
// them and for controllers to read replica counts, selectors and pod templates.
namespace nodewright::api::corev1 {

// DeploymentCondition, ReplicaSetCondition and DaemonSetCondition share this shape (only
// Deployments set lastUpdateTime).
struct WorkloadCondition {
  std::string type;
  std::string status;
  core::Time lastUpdateTime;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<WorkloadCondition>);

struct RollingUpdateDeployment {
  std::optional<IntOrString> maxUnavailable;
  std::optional<IntOrString> maxSurge;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<RollingUpdateDeployment>);

struct DeploymentStrategy {
  std::string type;  // Recreate or RollingUpdate
  std::optional<RollingUpdateDeployment> rollingUpdate;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DeploymentStrategy>);

struct DeploymentSpec {
  std::optional<int32_t> replicas;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  DeploymentStrategy strategy;
  int32_t minReadySeconds = 0;
  std::optional<int32_t> revisionHistoryLimit;
  bool paused = false;
  std::optional<int32_t> progressDeadlineSeconds;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DeploymentSpec>);

struct DeploymentStatus {
  int64_t observedGeneration = 0;
  int32_t replicas = 0;
  int32_t updatedReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t unavailableReplicas = 0;
  std::vector<WorkloadCondition> conditions;
  std::optional<int32_t> collisionCount;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DeploymentStatus>);

struct Deployment {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Deployment>);

struct ReplicaSetSpec {
  std::optional<int32_t> replicas;
  int32_t minReadySeconds = 0;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<ReplicaSetSpec>);

struct ReplicaSetStatus {
  int32_t replicas = 0;
  int32_t fullyLabeledReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int64_t observedGeneration = 0;
  std::vector<WorkloadCondition> conditions;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<ReplicaSetStatus>);

struct ReplicaSet {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<ReplicaSet>);

struct RollingUpdateDaemonSet {
  std::optional<IntOrString> maxUnavailable;
  std::optional<IntOrString> maxSurge;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<RollingUpdateDaemonSet>);

struct DaemonSetUpdateStrategy {
  std::string type;  // RollingUpdate or OnDelete
  std::optional<RollingUpdateDaemonSet> rollingUpdate;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DaemonSetUpdateStrategy>);

struct DaemonSetSpec {
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  DaemonSetUpdateStrategy updateStrategy;
  int32_t minReadySeconds = 0;
  std::optional<int32_t> revisionHistoryLimit;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DaemonSetSpec>);

struct DaemonSetStatus {
  int32_t currentNumberScheduled = 0;
  int32_t numberMisscheduled = 0;
  int32_t desiredNumberScheduled = 0;
  int32_t numberReady = 0;
  int64_t observedGeneration = 0;
  int32_t updatedNumberScheduled = 0;
  int32_t numberAvailable = 0;
  int32_t numberUnavailable = 0;
  std::optional<int32_t> collisionCount;
  std::vector<WorkloadCondition> conditions;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<DaemonSetStatus>);

struct DaemonSet {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  DaemonSetSpec spec;
  DaemonSetStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<DaemonSet>);

}  // namespace nodewright::api::corev1
