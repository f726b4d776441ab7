// k8s.io/api/apps/v1 and k8s.io/api/policy/v1 generated.proto.
#include "apiserver/protobuf/messages.h"

namespace nodewright::apiserver::protobuf {
namespace {

using namespace field;

constexpr Field kRollingUpdateDeploymentFields[] = {
    intOrString(1, "maxUnavailable"),
    intOrString(2, "maxSurge"),
};
constexpr MessageDescriptor kRollingUpdateDeployment{"RollingUpdateDeployment",
                                                     kRollingUpdateDeploymentFields};

constexpr Field kDeploymentStrategyFields[] = {
    str(1, "type"),
    message(2, "rollingUpdate", kRollingUpdateDeployment),
};
constexpr MessageDescriptor kDeploymentStrategy{"DeploymentStrategy", kDeploymentStrategyFields};

constexpr Field kDeploymentSpecFields[] = {
    i32(1, "replicas").keep(),
    message(2, "selector", kLabelSelector),
    message(3, "template", kPodTemplateSpec),
    message(4, "strategy", kDeploymentStrategy),
    i32(5, "minReadySeconds"),
    i32(6, "revisionHistoryLimit").keep(),
    boolean(7, "paused"),
    i32(9, "progressDeadlineSeconds").keep(),
};
constexpr MessageDescriptor kDeploymentSpec{"DeploymentSpec", kDeploymentSpecFields};

constexpr Field kDeploymentConditionFields[] = {
    str(1, "type").keep(),         str(2, "status").keep(), time(6, "lastUpdateTime"),
    time(7, "lastTransitionTime"), str(4, "reason"),        str(5, "message"),
};
constexpr MessageDescriptor kDeploymentCondition{"DeploymentCondition", kDeploymentConditionFields};

constexpr Field kDeploymentStatusFields[] = {
    i64(1, "observedGeneration"),
    i32(2, "replicas"),
    i32(3, "updatedReplicas"),
    i32(7, "readyReplicas"),
    i32(4, "availableReplicas"),
    i32(5, "unavailableReplicas"),
    i32(9, "terminatingReplicas").keep(),
    repeated(message(6, "conditions", kDeploymentCondition)),
    i32(8, "collisionCount").keep(),
};
constexpr MessageDescriptor kDeploymentStatus{"DeploymentStatus", kDeploymentStatusFields};

constexpr Field kDeploymentFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kDeploymentSpec),
    message(3, "status", kDeploymentStatus),
};

constexpr Field kEvictionFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "deleteOptions", kDeleteOptions),
};

constexpr Field kPodDisruptionBudgetSpecFields[] = {
    intOrString(1, "minAvailable"),
    message(2, "selector", kLabelSelector),
    intOrString(3, "maxUnavailable"),
    str(4, "unhealthyPodEvictionPolicy").keep(),
};
constexpr MessageDescriptor kPodDisruptionBudgetSpec{"PodDisruptionBudgetSpec",
                                                     kPodDisruptionBudgetSpecFields};

constexpr Field kPodDisruptionBudgetStatusFields[] = {
    i64(1, "observedGeneration"),
    mapOf(time(2, "disruptedPods")),
    i32(3, "disruptionsAllowed").keep(),
    i32(4, "currentHealthy").keep(),
    i32(5, "desiredHealthy").keep(),
    i32(6, "expectedPods").keep(),
    repeated(message(7, "conditions", kCondition)),
};
constexpr MessageDescriptor kPodDisruptionBudgetStatus{"PodDisruptionBudgetStatus",
                                                       kPodDisruptionBudgetStatusFields};

constexpr Field kPodDisruptionBudgetFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodDisruptionBudgetSpec),
    message(3, "status", kPodDisruptionBudgetStatus),
};

}  // namespace

constinit const MessageDescriptor kDeployment{"Deployment", kDeploymentFields};
constinit const MessageDescriptor kEviction{"Eviction", kEvictionFields};
constinit const MessageDescriptor kPodDisruptionBudget{"PodDisruptionBudget",
                                                       kPodDisruptionBudgetFields};

}  // namespace nodewright::apiserver::protobuf
