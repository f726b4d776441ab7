#include "controllers/capz/azuremachine/machine_scope.h"

#include <fmt/format.h>

#include "api/capi/common.h"
#include "core/sha256.h"

namespace nodewright::controllers::capz::azuremachine {

std::optional<std::string> MachineScope::failureDomain() const {
  if (machine->spec.failureDomain && !machine->spec.failureDomain->empty()) {
    return machine->spec.failureDomain;
  }
  if (machineFailureDomain && !machineFailureDomain->empty()) {
    return machineFailureDomain;
  }
  return std::nullopt;
}

api::capz::Tags MachineScope::additionalTags() const {
  api::capz::Tags tags = cluster->spec.additionalTags;
  for (const auto& [key, value] : machine->spec.additionalTags) {
    tags[key] = value;
  }
  return tags;
}

std::string nicName(std::string_view vmName, size_t index, bool multiple) {
  return multiple ? fmt::format("{}-nic-{}", vmName, index) : fmt::format("{}-nic", vmName);
}

std::string nodePublicIPName(std::string_view vmName) {
  return fmt::format("pip-{}", vmName);
}

std::string osDiskName(std::string_view vmName) {
  return fmt::format("{}_OSDisk", vmName);
}

std::string dataDiskName(std::string_view vmName, std::string_view nameSuffix) {
  return fmt::format("{}_{}", vmName, nameSuffix);
}

std::optional<std::string> availabilitySetName(const MachineScope& scope) {
  // Zones spread the machines already; an availability set cannot be combined with a zone.
  if (!scope.cluster->status.failureDomains.empty() || scope.failureDomain()) {
    return std::nullopt;
  }
  if (scope.controlPlane()) {
    return fmt::format("{}_control-plane-as", scope.clusterName);
  }
  for (const char* label :
       {api::capi::kMachineDeploymentNameLabel, api::capi::kMachineSetNameLabel}) {
    auto it = scope.machineLabels.find(label);
    if (it != scope.machineLabels.end() && !it->second.empty()) {
      return fmt::format("{}_{}-as", scope.clusterName, it->second);
    }
  }
  return std::nullopt;
}

std::string stableGuid(std::string_view seed) {
  const std::string hex = core::sha256Hex(seed);
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20, 12));
}

}  // namespace nodewright::controllers::capz::azuremachine
