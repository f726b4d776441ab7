#pragma once

// Names the Cluster API core controllers write, spelled as CAPI spells them so that clusterctl,
// kubectl columns and CAPZ find what they expect.
namespace nodewright::controllers::capi {

inline constexpr const char* kApiVersion = "cluster.x-k8s.io/v1beta1";

// Finalizers: an object's external parts are gone before the object is.
inline constexpr const char* kClusterFinalizer = "cluster.cluster.x-k8s.io";
inline constexpr const char* kMachineFinalizer = "machine.cluster.x-k8s.io";
inline constexpr const char* kMachinePoolFinalizer = "machinepool.cluster.x-k8s.io";

// Labels. MachineSets and their Machines carry the hash of the MachineDeployment template
// revision they were made from.
inline constexpr const char* kMachineTemplateHashLabel = "machine-template-hash";
inline constexpr const char* kMachinePoolNameLabel = "cluster.x-k8s.io/pool-name";
// A Machine annotated with this is the first a MachineSet removes when it scales down.
inline constexpr const char* kDeleteMachineAnnotation = "cluster.x-k8s.io/delete-machine";
// Set on objects cloned from a template (CAPI's clusterv1.TemplateClonedFrom*Annotation).
inline constexpr const char* kClonedFromNameAnnotation = "cluster.x-k8s.io/cloned-from-name";
inline constexpr const char* kClonedFromGroupKindAnnotation =
    "cluster.x-k8s.io/cloned-from-groupkind";

// Bootstrap data secrets (CAPI's bootstrap contract).
inline constexpr const char* kBootstrapSecretType = "cluster.x-k8s.io/secret";
inline constexpr const char* kBootstrapSecretSuffix = "-bootstrap";
inline constexpr const char* kBootstrapValueKey = "value";
inline constexpr const char* kBootstrapFormatKey = "format";
inline constexpr const char* kBootstrapFormatCloudConfig = "cloud-config";

// MachineDeployment strategies and MachineSet delete policies.
inline constexpr const char* kRollingUpdateStrategy = "RollingUpdate";
inline constexpr const char* kOnDeleteStrategy = "OnDelete";
inline constexpr const char* kRandomDeletePolicy = "Random";
inline constexpr const char* kNewestDeletePolicy = "Newest";
inline constexpr const char* kOldestDeletePolicy = "Oldest";

// Condition types and reasons (CAPI v1beta1).
inline constexpr const char* kBootstrapReadyCondition = "BootstrapReady";
inline constexpr const char* kInfrastructureReadyCondition = "InfrastructureReady";
inline constexpr const char* kMachinesCreatedCondition = "MachinesCreated";
inline constexpr const char* kMachinesReadyCondition = "MachinesReady";
inline constexpr const char* kAvailableCondition = "Available";
inline constexpr const char* kWaitingForDataSecretReason = "WaitingForDataSecret";
inline constexpr const char* kWaitingForInfrastructureReason = "WaitingForInfrastructure";
inline constexpr const char* kWaitingForProviderIdReason = "WaitingForProviderID";
inline constexpr const char* kDeletingReason = "Deleting";
inline constexpr const char* kDeletionFailedReason = "DeletionFailed";
inline constexpr const char* kMachineCreationFailedReason = "MachineCreationFailed";
inline constexpr const char* kWaitingForAvailableMachinesReason = "WaitingForAvailableMachines";
inline constexpr const char* kScalingUpReason = "ScalingUp";
inline constexpr const char* kScalingDownReason = "ScalingDown";

// Phases.
inline constexpr const char* kPhasePending = "Pending";
inline constexpr const char* kPhaseProvisioning = "Provisioning";
inline constexpr const char* kPhaseProvisioned = "Provisioned";
inline constexpr const char* kPhaseRunning = "Running";
inline constexpr const char* kPhaseDeleting = "Deleting";
inline constexpr const char* kPhaseFailed = "Failed";
inline constexpr const char* kPhaseScalingUp = "ScalingUp";
inline constexpr const char* kPhaseScalingDown = "ScalingDown";

}  // namespace nodewright::controllers::capi
