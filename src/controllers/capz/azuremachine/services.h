#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "controllers/capz/azuremachine/machine_scope.h"
#include "controllers/capz/service.h"
#include "core/error.h"

// An AzureMachine's Azure services in CAPZ's order (publicips, networkinterfaces,
// availabilitysets, disks, virtualmachine, roleassignments, vmextensions, tags), with the
// dependencies that order stands for, and what the machine's status learns from them.
namespace nodewright::controllers::capz::azuremachine {

enum class Purpose { Create, Delete };

// Create: every resource the machine needs; role assignments only once scope.principalId is
// known (see roleAssignmentServices). Delete: every resource the machine may have, disks
// included (the VM leaves them behind), and no body is needed. Invalid when the machine cannot
// be built (no subnet for its role, a bad SSH key).
core::Result<std::vector<Service>> machineServices(const MachineScope& scope, Purpose purpose);

// The role assignment of a SystemAssigned machine (empty otherwise), to run once the VM exists
// and its identity's principal is in scope.principalId.
std::vector<Service> roleAssignmentServices(const MachineScope& scope);
bool needsRoleAssignment(const MachineScope& scope);

// CAPZ's availabilitysets delete: the machine's availability set goes once no VM is left in it
// (Done while other machines still use it).
lro::Outcome removeAvailabilitySetIfUnused(lro::Engine& engine, const MachineScope& scope,
                                           api::capz::Futures& futures);

// What the machine's status takes from its Done VM (and the VM's NICs and public IPs).
struct VmObservation {
  std::string providerID;  // "azure://" + the VM's id as ARM returns it
  std::string vmState;     // properties.provisioningState: Creating, Succeeded, Failed, ...
  std::vector<api::capi::MachineAddress> addresses;
  std::optional<std::string> principalId;  // the system-assigned identity's
};
// nullopt when the VM is not among the pass's Done results.
std::optional<VmObservation> observeVm(const MachineScope& scope, const Pass& pass);

// The VM's resource id.
std::string vmId(const MachineScope& scope);

// Whether ARM has the machine's VM, in any provisioning state; nullopt when the read failed.
// Tells a VM whose operation ran and ended Failed (it exists) from a PUT ARM refused (it does
// not).
std::optional<bool> vmExists(lro::Engine& engine, const MachineScope& scope);

}  // namespace nodewright::controllers::capz::azuremachine
