#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "cloud/azure/arm_client.h"
#include "core/error.h"

// The instances of a virtual machine scale set as ARM lists them (GET
// .../virtualMachineScaleSets/NAME/virtualMachines, every page), for the AzureMachinePool
// controller's ScaleSetInstances seam (wired in cmd/azure_controller_set.cc: this module does
// not depend on the controllers).
namespace nodewright::cloud::azure {

// Every instance's body. NotFound when the scale set does not exist, Invalid when
// `scaleSetId` is not a scale set's id or ARM refused the request, Throttled on a 429 and
// Internal for the transient failures (5xx, no answer, the timeout). Thread-safe as `arm` is.
core::Result<std::vector<api::Json>> listScaleSetInstances(ArmClient& arm,
                                                           const std::string& scaleSetId,
                                                           std::chrono::milliseconds timeout);

// A failed ARM call as a core::Error of the same meaning.
core::Error coreErrorOf(const lro::CallError& error);

}  // namespace nodewright::cloud::azure
