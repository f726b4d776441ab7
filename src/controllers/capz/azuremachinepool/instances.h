#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"

// The instances of a scale set, as ARM lists them (GET .../virtualMachineScaleSets/NAME/
// virtualMachines). The futures engine reads single resources only; listing is this seam's.
namespace nodewright::controllers::capz::azuremachinepool {

class ScaleSetInstances {
 public:
  virtual ~ScaleSetInstances() = default;
  // Every instance's body; NotFound when the scale set does not exist. Thread-safe.
  virtual core::Result<std::vector<api::Json>> list(const std::string& scaleSetId) = 0;
};
using ScaleSetInstancesPtr = std::unique_ptr<ScaleSetInstances>;

}  // namespace nodewright::controllers::capz::azuremachinepool
