#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "controllers/capz/azuremachine/machine_scope.h"
#include "core/error.h"

// The ARM PUT bodies of an AzureMachine's resources, as CAPZ's specs' Parameters() build them
// (azure/services/{publicips,networkinterfaces,availabilitysets,virtualmachines,vmextensions}).
namespace nodewright::controllers::capz::azuremachine {

// What a VM and a scale set's VM model share: the AzureMachine's spec or the pool's template.
struct VmProfile {
  const std::optional<api::capz::Image>* image = nullptr;
  const api::capz::OSDisk* osDisk = nullptr;
  const std::vector<api::capz::DataDisk>* dataDisks = nullptr;
  std::string sshPublicKey;
  std::string bootstrapData;  // never logged
  // A VM's name: its disks' names ("<vm>_OSDisk") and computerName. Empty for a scale set,
  // whose instances name their disks and are named from `computerNamePrefix`.
  std::string vmName;
  std::string computerNamePrefix;
};
// storageProfile: image, OS and data disks; a purchase plan goes into `body`.
api::Json storageProfile(const VmProfile& profile, api::Json& body);
// osProfile: admin user, custom data, SSH key (Linux) or a random password (Windows). Invalid
// when the SSH key is not base64.
core::Result<api::Json> osProfile(const VmProfile& profile);

api::Json publicIPBody(const MachineScope& scope, const std::string& name);

// One NIC: `privateIPConfigs` IP configurations in `subnetId`, the first one primary and
// carrying `publicIPId` when given; `backendPoolIds` are the load balancer pools it joins.
struct NicParams {
  std::string name;
  std::string subnetId;
  std::optional<std::string> publicIPId;
  std::vector<std::string> backendPoolIds;
  int privateIPConfigs = 1;
  bool acceleratedNetworking = false;
};
api::Json nicBody(const MachineScope& scope, const NicParams& nic);

api::Json availabilitySetBody(const MachineScope& scope, const std::string& name);

// The VM: image, disks, admin user with the SSH key, custom data, identity, zone or availability
// set, spot options, security and diagnostics. Invalid when the SSH key is not base64.
core::Result<api::Json> vmBody(const MachineScope& scope, const std::vector<std::string>& nicIds,
                               const std::optional<std::string>& availabilitySetId);

struct ExtensionParams {
  std::string name;
  std::string publisher;
  std::string version;
  api::Json settings = api::Json::object();
  api::Json protectedSettings = api::Json::object();
};
api::Json extensionBody(const MachineScope& scope, const ExtensionParams& extension);
// CAPZ's bootstrapping extension for the VM's OS, which fails the VM's bootstrap when the
// sentinel file never appears; nullopt outside Azure's public cloud, where it is not published.
std::optional<ExtensionParams> bootstrapExtension(const MachineScope& scope);

}  // namespace nodewright::controllers::capz::azuremachine
