#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/future.h"
#include "api/capz/vm.h"

// infrastructure.cluster.x-k8s.io/v1beta1 AzureMachine (one Azure VM behind a CAPI Machine) and
// AzureMachineTemplate (what a MachineDeployment stamps AzureMachines from).
namespace nodewright::api::capz {

struct AzureMachineSpec {
  std::optional<std::string> providerID;
  std::string vmSize;
  std::optional<std::string> failureDomain;
  std::optional<Image> image;
  std::string identity;  // None, SystemAssigned, UserAssigned
  std::vector<UserAssignedIdentity> userAssignedIdentities;
  std::optional<SystemAssignedIdentityRole> systemAssignedIdentityRole;
  std::string roleAssignmentName;  // deprecated: systemAssignedIdentityRole.name
  OSDisk osDisk;
  std::vector<DataDisk> dataDisks;
  std::string sshPublicKey;
  Tags additionalTags;
  std::optional<AdditionalCapabilities> additionalCapabilities;
  bool allocatePublicIP = false;
  bool enableIPForwarding = false;
  std::optional<bool> acceleratedNetworking;  // deprecated: networkInterfaces
  std::optional<Diagnostics> diagnostics;
  std::optional<SpotVMOptions> spotVMOptions;
  std::optional<SecurityProfile> securityProfile;
  std::string subnetName;  // deprecated: networkInterfaces
  std::vector<std::string> dnsServers;
  std::optional<bool> disableExtensionOperations;
  std::vector<VMExtension> vmExtensions;
  std::vector<NetworkInterface> networkInterfaces;
  std::optional<std::string> capacityReservationGroupID;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachineSpec>);

struct AzureMachineStatus {
  bool ready = false;
  std::vector<capi::MachineAddress> addresses;
  std::optional<std::string> vmState;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::vector<capi::CapiCondition> conditions;
  Futures longRunningOperationStates;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachineStatus>);

struct AzureMachine {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureMachineSpec spec;
  AzureMachineStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachine>);

struct AzureMachineTemplateResource {
  capi::TemplateMetadata metadata;
  AzureMachineSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachineTemplateResource>);

struct AzureMachineTemplateSpec {
  AzureMachineTemplateResource template_;  // JSON "template"
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachineTemplateSpec>);

struct AzureMachineTemplate {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureMachineTemplateSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMachineTemplate>);

}  // namespace nodewright::api::capz
