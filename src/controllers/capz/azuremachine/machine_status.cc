#include "controllers/capz/azuremachine/machine_status.h"

#include <algorithm>
#include "controllers/capz/azuremachine/services.h"

#include "api/capi/conditions.h"

namespace nodewright::controllers::capz::azuremachine {
namespace {

const lro::Outcome* outcomeOf(const Pass& pass, std::string_view service) {
  for (const auto& [name, outcome] : pass.outcomes) {
    if (name == service) {
      return &outcome;
    }
  }
  return nullptr;
}

void setVMRunningTrue(api::capz::AzureMachine& machine, core::Time now) {
  api::capi::CapiCondition c;
  c.type = kVMRunningCondition;
  c.status = "True";
  api::capi::setCondition(machine.status.conditions, std::move(c), now);
}

void fail(api::capz::AzureMachine& machine, std::string message, core::Time now) {
  machine.status.ready = false;
  machine.status.failureReason = kCreateMachineError;
  machine.status.failureMessage = message;
  setVMRunningFalse(machine, kVMProvisionFailedReason, now, api::capi::kSeverityError, message);
}

int severityRank(const std::string& severity) {
  if (severity == api::capi::kSeverityError) {
    return 3;
  }
  if (severity == api::capi::kSeverityWarning) {
    return 2;
  }
  return 1;
}

}  // namespace

void setVMRunningFalse(api::capz::AzureMachine& machine, std::string_view reason, core::Time now,
                       std::string_view severity, std::string_view message) {
  api::capi::CapiCondition c;
  c.type = kVMRunningCondition;
  c.status = "False";
  c.reason = std::string(reason);
  c.severity = std::string(severity);
  c.message = std::string(message);
  api::capi::setCondition(machine.status.conditions, std::move(c), now);
}

const lro::Outcome* failedVmPut(const Pass& pass) {
  const lro::Outcome* put = outcomeOf(pass, kVirtualMachineService);
  return put != nullptr && put->kind == lro::Outcome::Kind::Failed ? put : nullptr;
}

void applyCreatePass(api::capz::AzureMachine& machine, const MachineScope& scope, const Pass& pass,
                     core::Time now, VmPutFailure failure) {
  auto& status = machine.status;
  std::optional<VmObservation> vm = observeVm(scope, pass);
  if (!vm) {
    status.ready = false;
    if (const lro::Outcome* put = failedVmPut(pass)) {
      if (failure == VmPutFailure::Refused) {
        fail(machine, put->message, now);
      } else {
        setVMRunningFalse(machine, kVMProvisionFailedReason, now, api::capi::kSeverityWarning,
                          put->message);
      }
    } else {
      setVMRunningFalse(machine, kVMCreatingReason, now);
    }
    return;
  }
  machine.spec.providerID = vm->providerID;
  status.addresses = vm->addresses;
  status.vmState = vm->vmState;
  if (vm->vmState == "Succeeded") {
    setVMRunningTrue(machine, now);
    status.ready = pass.done;
  } else if (vm->vmState == "Failed") {
    // Seen without a PUT of this pass failing (another process's operation): retried as well.
    status.ready = false;
    setVMRunningFalse(machine, kVMProvisionFailedReason, now, api::capi::kSeverityWarning,
                      "VM provisioning state is Failed");
  } else {
    status.ready = false;
    const char* reason = vm->vmState == "Updating"   ? kVMUpdatingReason
                         : vm->vmState == "Deleting" ? kVMDeletingReason
                                                     : kVMCreatingReason;
    setVMRunningFalse(machine, reason, now);
  }
}

bool retryingProvisioning(const api::capz::AzureMachine& machine) {
  if (machine.status.failureReason) {
    return false;
  }
  for (const auto& c : machine.status.conditions) {
    if (c.type == kVMRunningCondition) {
      return c.status == "False" && c.reason == kVMProvisionFailedReason;
    }
  }
  return false;
}

void setReadySummary(std::vector<api::capi::CapiCondition>& conditions, core::Time now) {
  const api::capi::CapiCondition* worst = nullptr;
  for (const auto& c : conditions) {
    if (c.type == api::capi::kReadyCondition || c.status == "True") {
      continue;
    }
    if (worst == nullptr || severityRank(c.severity) > severityRank(worst->severity)) {
      worst = &c;
    }
  }
  api::capi::CapiCondition ready;
  ready.type = api::capi::kReadyCondition;
  if (worst == nullptr) {
    ready.status = "True";
  } else {
    ready.status = "False";
    ready.reason = worst->reason;
    ready.severity = worst->severity;
    ready.message = worst->message;
  }
  api::capi::setCondition(conditions, std::move(ready), now);
}

void combinePasses(Pass& into, Pass more) {
  into.done = into.done && more.done;
  if (more.failed && !into.failed) {
    into.failed = true;
    into.failureMessage = std::move(more.failureMessage);
  }
  if (more.requeueAfter) {
    into.requeueAfter =
        into.requeueAfter ? std::min(*into.requeueAfter, *more.requeueAfter) : more.requeueAfter;
  }
  for (auto& outcome : more.outcomes) {
    into.outcomes.push_back(std::move(outcome));
  }
  for (auto& result : more.results) {
    into.results.push_back(std::move(result));
  }
}

}  // namespace nodewright::controllers::capz::azuremachine
