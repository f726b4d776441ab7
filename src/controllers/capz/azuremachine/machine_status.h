#pragma once

#include <string_view>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/azure_machine.h"
#include "controllers/capz/azuremachine/machine_scope.h"
#include "controllers/capz/service.h"
#include "core/time.h"

// What an AzureMachine's status says after a pass over its services: CAPZ's VMRunning reasons,
// the machine's failure fields, providerID, addresses, vmState and ready, and a Ready summary.
namespace nodewright::controllers::capz::azuremachine {

inline constexpr const char* kWaitingForClusterInfrastructureReason =
    "WaitingForClusterInfrastructure";
inline constexpr const char* kWaitingForBootstrapDataReason = "WaitingForBootstrapData";
inline constexpr const char* kVMCreatingReason = "VMCreating";
inline constexpr const char* kVMUpdatingReason = "VMUpdating";
inline constexpr const char* kVMDeletingReason = "VMDeleting";
inline constexpr const char* kVMProvisionFailedReason = "VMProvisionFailed";
// CAPI's MachineStatusError for a machine that could not be created.
inline constexpr const char* kCreateMachineError = "CreateError";

// VMRunning False with `reason` (severity Info unless given).
void setVMRunningFalse(api::capz::AzureMachine& machine, std::string_view reason, core::Time now,
                       std::string_view severity = "Info", std::string_view message = "");

// After a create pass: the VM's providerID, addresses and vmState once it exists; VMRunning by
// vmState (Succeeded: True; Creating/Updating/Deleting: VMCreating/...; Failed, or a terminal
// failure of the VM's PUT: VMProvisionFailed with failureReason and failureMessage); ready when
// every service is Done and the VM Succeeded. `spec.providerID` is set on `machine` too.
void applyCreatePass(api::capz::AzureMachine& machine, const MachineScope& scope, const Pass& pass,
                     core::Time now);

// Ready: True when every other condition is True, otherwise the most severe False one's
// reason, severity and message (CAPI's conditions.SetSummary).
void setReadySummary(std::vector<api::capi::CapiCondition>& conditions, core::Time now);

// `more`'s services added to `into` (a second pass over services `into` did not hold).
void combinePasses(Pass& into, Pass more);

}  // namespace nodewright::controllers::capz::azuremachine
