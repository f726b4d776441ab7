#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/future.h"
#include "api/capz/vm.h"

// infrastructure.cluster.x-k8s.io/v1beta1 AzureMachinePool (a virtual machine scale set behind a
// CAPI MachinePool) and AzureMachinePoolMachine (one instance of that scale set).
namespace nodewright::api::capz {

// The VM model of the scale set.
struct AzureMachinePoolMachineTemplate {
  std::string vmSize;
  std::optional<Image> image;
  OSDisk osDisk;
  std::vector<DataDisk> dataDisks;
  std::string sshPublicKey;
  std::optional<bool> acceleratedNetworking;  // deprecated: networkInterfaces
  std::optional<AdditionalCapabilities> additionalCapabilities;
  std::optional<Diagnostics> diagnostics;
  std::optional<int32_t> terminateNotificationTimeout;
  std::optional<SecurityProfile> securityProfile;
  std::optional<SpotVMOptions> spotVMOptions;
  std::string subnetName;  // deprecated: networkInterfaces
  std::vector<VMExtension> vmExtensions;
  std::optional<bool> disableVMBootstrapExtension;
  std::vector<NetworkInterface> networkInterfaces;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolMachineTemplate>);

struct AzureMachinePoolRollingUpdate {
  std::optional<IntOrString> maxUnavailable;
  std::optional<IntOrString> maxSurge;
  std::string deletePolicy;  // Random, Newest, Oldest
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolRollingUpdate>);

struct AzureMachinePoolDeploymentStrategy {
  std::string type;  // RollingUpdate
  std::optional<AzureMachinePoolRollingUpdate> rollingUpdate;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolDeploymentStrategy>);

struct AzureMachinePoolSpec {
  std::string location;
  AzureMachinePoolMachineTemplate template_;  // JSON "template"
  Tags additionalTags;
  std::string providerID;
  std::vector<std::string> providerIDList;
  std::string identity;  // None, SystemAssigned, UserAssigned
  std::optional<SystemAssignedIdentityRole> systemAssignedIdentityRole;
  std::vector<UserAssignedIdentity> userAssignedIdentities;
  std::string roleAssignmentName;  // deprecated: systemAssignedIdentityRole.name
  AzureMachinePoolDeploymentStrategy strategy;
  std::string orchestrationMode;  // Flexible, Uniform
  std::optional<int32_t> platformFaultDomainCount;
  std::optional<bool> zoneBalance;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolSpec>);

struct AzureMachinePoolInstanceStatus {
  std::string version;
  std::optional<std::string> provisioningState;
  std::string providerID;
  std::string instanceID;
  std::string instanceName;
  bool latestModelApplied = false;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolInstanceStatus>);

struct AzureMachinePoolStatus {
  bool ready = false;
  int32_t replicas = 0;
  std::vector<AzureMachinePoolInstanceStatus> instances;
  std::optional<Image> image;
  std::string version;
  std::optional<std::string> provisioningState;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::vector<capi::CapiCondition> conditions;
  Futures longRunningOperationStates;
  std::string infrastructureMachineKind;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolStatus>);

struct AzureMachinePool {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureMachinePoolSpec spec;
  AzureMachinePoolStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePool>);

struct AzureMachinePoolMachineSpec {
  std::string providerID;
  std::string instanceID;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolMachineSpec>);

struct AzureMachinePoolMachineStatus {
  std::optional<ObjectReference> nodeRef;
  std::string version;
  std::optional<std::string> provisioningState;
  std::string instanceName;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::vector<capi::CapiCondition> conditions;
  Futures longRunningOperationStates;
  bool latestModelApplied = false;
  bool ready = false;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolMachineStatus>);

struct AzureMachinePoolMachine {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureMachinePoolMachineSpec spec;
  AzureMachinePoolMachineStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachinePoolMachine>);

}  // namespace nodewright::api::capz
