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

// How the VM's PUT failed. Operation: the VM exists and its operation ended Failed (an
// allocation failure, a provisioning timeout), so it is PUT again later. Refused: ARM rejected
// the request (an invalid size or parameter), which no retry fixes: terminal.
enum class VmPutFailure { Operation, Refused };

// The pass's outcome for the VM's PUT when it Failed; nullptr otherwise.
const lro::Outcome* failedVmPut(const Pass& pass);

// After a create pass: the VM's providerID, addresses and vmState once it exists; VMRunning by
// vmState (Succeeded: True; Creating/Updating/Deleting: VMCreating/...). A failed VM (its
// state Failed, or its PUT Failed as `failure` says) gives VMProvisionFailed with the error in
// the message: severity Warning while it is retried, Error with failureReason and
// failureMessage when it is terminal. Ready when every service is Done and the VM Succeeded.
// `spec.providerID` is set on `machine` too.
void applyCreatePass(api::capz::AzureMachine& machine, const MachineScope& scope, const Pass& pass,
                     core::Time now, VmPutFailure failure = VmPutFailure::Refused);

// VMRunning says VMProvisionFailed without a terminal failure: the VM is to be PUT again.
bool retryingProvisioning(const api::capz::AzureMachine& machine);

// Ready: True when every other condition is True, otherwise the most severe False one's
// reason, severity and message (CAPI's conditions.SetSummary).
void setReadySummary(std::vector<api::capi::CapiCondition>& conditions, core::Time now);

// `more`'s services added to `into` (a second pass over services `into` did not hold).
void combinePasses(Pass& into, Pass more);

}  // namespace nodewright::controllers::capz::azuremachine
