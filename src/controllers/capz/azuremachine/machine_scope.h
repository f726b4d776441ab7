#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"

// What CAPZ's MachineScope knows about one AzureMachine when it builds the machine's Azure
// services: the machine, its cluster's Azure side, the owner CAPI Machine's identity and
// bootstrap data. The names it derives are CAPZ's (azure/defaults.go), so that resources made by
// CAPZ and by nodewright are the same resources.
namespace nodewright::controllers::capz::azuremachine {

// The CAPI label marking a control-plane Machine.
inline constexpr const char* kControlPlaneLabel = "cluster.x-k8s.io/control-plane";
// The service names (Future.serviceName), as CAPZ's services call themselves.
inline constexpr const char* kPublicIPsService = "publicips";
inline constexpr const char* kNetworkInterfacesService = "networkinterfaces";
inline constexpr const char* kAvailabilitySetsService = "availabilitysets";
inline constexpr const char* kDisksService = "disks";
inline constexpr const char* kVirtualMachineService = "virtualmachine";
inline constexpr const char* kRoleAssignmentsService = "roleassignments";
inline constexpr const char* kVMExtensionsService = "vmextensions";
inline constexpr const char* kTagsService = "tags";
// CAPZ's AzureMachine condition types beyond the shared ones (api/capz/conditions.h).
inline constexpr const char* kVMRunningCondition = "VMRunning";
inline constexpr const char* kNetworkInterfacesReadyCondition = "NetworkInterfacesReady";
inline constexpr const char* kDisksReadyCondition = "DisksReady";
inline constexpr const char* kBootstrapSucceededCondition = "BootstrapSucceeded";

struct MachineScope {
  // Must outlive the scope.
  const api::capz::AzureMachine* machine = nullptr;
  const api::capz::AzureCluster* cluster = nullptr;
  std::string clusterName;  // the CAPI Cluster's name
  // The owner CAPI Machine: its name and labels (deployment name, control-plane role).
  std::string machineName;
  std::map<std::string, std::string> machineLabels;
  std::optional<std::string> kubernetesVersion;
  std::optional<std::string> machineFailureDomain;  // Machine.spec.failureDomain
  // The bootstrap data as the bootstrap provider wrote it (not encoded); never logged.
  std::string bootstrapData;
  // The VM's system-assigned identity, once the VM exists: role assignments need it.
  std::optional<std::string> principalId;

  const std::string& vmName() const { return machine->metadata.name; }
  const std::string& subscription() const { return cluster->spec.subscriptionID; }
  const std::string& resourceGroup() const { return cluster->spec.resourceGroup; }
  const std::string& location() const { return cluster->spec.location; }
  bool controlPlane() const { return machineLabels.contains(kControlPlaneLabel); }
  // "control-plane" or "node": the subnet role and the role tag.
  std::string role() const { return controlPlane() ? "control-plane" : "node"; }
  // The machine's zone: AzureMachine.spec.failureDomain, else the Machine's.
  std::optional<std::string> failureDomain() const;
  // The cluster's additionalTags with the machine's on top.
  api::capz::Tags additionalTags() const;
};

// CAPZ's names (azure/defaults.go).
std::string nicName(std::string_view vmName, size_t index, bool multiple);
std::string nodePublicIPName(std::string_view vmName);
std::string osDiskName(std::string_view vmName);
std::string dataDiskName(std::string_view vmName, std::string_view nameSuffix);
// "<cluster>_<group>-as", where the group is the MachineDeployment, or "control-plane"; nullopt
// when the machine needs no availability set: it has a failure domain, the cluster reports
// failure domains (zones), or the machine belongs to no deployment.
std::optional<std::string> availabilitySetName(const MachineScope& scope);

// A GUID derived from `seed`: the same seed names the same role assignment after a restart.
std::string stableGuid(std::string_view seed);

}  // namespace nodewright::controllers::capz::azuremachine
