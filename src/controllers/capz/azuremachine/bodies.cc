#include "controllers/capz/azuremachine/bodies.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "api/core/validation.h"
#include "controllers/capz/arm_resource.h"

namespace nodewright::controllers::capz::azuremachine {
namespace {

using api::Json;

// CAPZ's admin user and where its SSH key goes.
constexpr const char* kAdminUser = "capi";
constexpr const char* kLinuxBootstrapCommand =
    "for i in $(seq 1 1200); do test -f /run/cluster-api/bootstrap-success.complete && break; "
    "if [ $i -eq 1200 ]; then exit 1; else sleep 1; fi; done";
constexpr const char* kWindowsBootstrapCommand =
    "powershell.exe -Command \"for ($i = 0; $i -lt 1200; $i++) { if (Test-Path "
    "'C:/k/bootstrap-success.complete') { exit 0 }; Start-Sleep -Seconds 1 }; exit 1\"";

// 24 random characters of every class Windows' complexity rules ask for.
std::string randomPassword() {
  static constexpr std::string_view kClasses[] = {
      "ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnopqrstuvwxyz", "23456789", "!@#%*-_"};
  std::random_device rng;
  std::string out;
  for (int i = 0; i < 24; ++i) {
    std::string_view chars = kClasses[i % 4];
    out += chars[rng() % chars.size()];
  }
  return out;
}

Json tagsOf(const MachineScope& scope, std::string_view role, std::string_view name) {
  return Json(ownedTags(scope.clusterName, role, name, scope.additionalTags()));
}

bool isWindows(const MachineScope& scope) {
  return scope.machine->spec.osDisk.osType == "Windows";
}

bool isWindows(const VmProfile& profile) {
  return profile.osDisk->osType == "Windows";
}

// The image reference and, for third-party marketplace or gallery images, the purchase plan.
void setImage(const VmProfile& profile, Json& body, Json& storage) {
  const auto& image = *profile.image;
  Json ref;
  std::optional<Json> plan;
  if (image && image->id) {
    ref = {{"id", *image->id}};
  } else if (image && image->marketplace) {
    const auto& m = *image->marketplace;
    ref = {{"publisher", m.publisher}, {"offer", m.offer}, {"sku", m.sku}, {"version", m.version}};
    if (m.thirdPartyImage) {
      plan = Json{{"name", m.sku}, {"product", m.offer}, {"publisher", m.publisher}};
    }
  } else if (image && image->sharedGallery) {
    const auto& g = *image->sharedGallery;
    ref = {{"id", fmt::format("/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Compute/"
                              "galleries/{}/images/{}/versions/{}",
                              g.subscriptionID, g.resourceGroup, g.gallery, g.name, g.version)}};
    if (g.publisher && g.offer && g.sku) {
      plan = Json{{"name", *g.sku}, {"product", *g.offer}, {"publisher", *g.publisher}};
    }
  } else if (image && image->computeGallery) {
    const auto& g = *image->computeGallery;
    if (g.subscriptionID && g.resourceGroup) {
      ref = {
          {"id", fmt::format("/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Compute/"
                             "galleries/{}/images/{}/versions/{}",
                             *g.subscriptionID, *g.resourceGroup, g.gallery, g.name, g.version)}};
    } else {
      ref = {{"communityGalleryImageId", fmt::format("/CommunityGalleries/{}/Images/{}/Versions/{}",
                                                     g.gallery, g.name, g.version)}};
    }
    if (g.plan) {
      plan =
          Json{{"name", g.plan->sku}, {"product", g.plan->offer}, {"publisher", g.plan->publisher}};
    }
  } else {
    // No image: the reference images CAPZ publishes for Cluster API.
    ref = {{"publisher", "cncf-upstream"},
           {"offer", "capi"},
           {"sku", isWindows(profile) ? "windows-2022-containerd-gen1" : "ubuntu-2204-gen1"},
           {"version", "latest"}};
  }
  storage["imageReference"] = std::move(ref);
  if (plan) {
    body["plan"] = std::move(*plan);
  }
}

Json managedDisk(const std::optional<api::capz::ManagedDiskParameters>& params) {
  Json out = Json::object();
  if (!params) {
    return out;
  }
  if (!params->storageAccountType.empty()) {
    out["storageAccountType"] = params->storageAccountType;
  }
  if (params->diskEncryptionSet) {
    out["diskEncryptionSet"] = {{"id", params->diskEncryptionSet->id}};
  }
  if (params->securityProfile && params->securityProfile->securityEncryptionType) {
    out["securityProfile"] = {
        {"securityEncryptionType", *params->securityProfile->securityEncryptionType}};
  }
  return out;
}

}  // namespace

Json storageProfile(const VmProfile& profile, Json& body) {
  const api::capz::OSDisk& osDisk = *profile.osDisk;
  Json storage = Json::object();
  setImage(profile, body, storage);
  Json os = {{"osType", osDisk.osType.empty() ? "Linux" : osDisk.osType},
             {"createOption", "FromImage"},
             {"managedDisk", managedDisk(osDisk.managedDisk)}};
  if (!profile.vmName.empty()) {
    os["name"] = osDiskName(profile.vmName);
  }
  if (osDisk.diskSizeGB) {
    os["diskSizeGB"] = *osDisk.diskSizeGB;
  }
  if (!osDisk.cachingType.empty()) {
    os["caching"] = osDisk.cachingType;
  }
  if (osDisk.diffDiskSettings) {
    os["diffDiskSettings"] = {{"option", osDisk.diffDiskSettings->option}};
    if (osDisk.diffDiskSettings->placement) {
      os["diffDiskSettings"]["placement"] = *osDisk.diffDiskSettings->placement;
    }
  }
  storage["osDisk"] = std::move(os);
  Json data = Json::array();
  for (const auto& disk : *profile.dataDisks) {
    Json d = {{"createOption", "Empty"},
              {"diskSizeGB", disk.diskSizeGB},
              {"managedDisk", managedDisk(disk.managedDisk)}};
    if (!profile.vmName.empty()) {
      d["name"] = dataDiskName(profile.vmName, disk.nameSuffix);
    }
    if (disk.lun) {
      d["lun"] = *disk.lun;
    }
    if (!disk.cachingType.empty()) {
      d["caching"] = disk.cachingType;
    }
    data.push_back(std::move(d));
  }
  storage["dataDisks"] = std::move(data);
  return storage;
}

core::Result<Json> osProfile(const VmProfile& profile) {
  Json os = Json::object();
  if (!profile.vmName.empty()) {
    os["computerName"] = profile.vmName;
  } else {
    os["computerNamePrefix"] = profile.computerNamePrefix;
  }
  os["adminUsername"] = kAdminUser;
  os["customData"] = api::corev1::encodeBase64(profile.bootstrapData);
  if (isWindows(profile)) {
    // Windows takes no SSH key through the profile; CAPZ sets a random admin password, which
    // nobody knows (access is through the SSH key the bootstrap data installs).
    os["adminPassword"] = randomPassword();
    os["windowsConfiguration"] = {{"enableAutomaticUpdates", false}};
  } else {
    api::corev1::Base64Result key = api::corev1::decodeBase64(profile.sshPublicKey);
    if (key.errorOffset) {
      return tl::unexpected(core::Error::invalid("sshPublicKey is not base64"));
    }
    os["linuxConfiguration"] = {
        {"disablePasswordAuthentication", true},
        {"ssh",
         {{"publicKeys",
           Json::array({{{"path", fmt::format("/home/{}/.ssh/authorized_keys", kAdminUser)},
                         {"keyData", key.bytes}}})}}}};
  }
  return os;
}

namespace {

VmProfile profileOf(const MachineScope& scope) {
  const auto& spec = scope.machine->spec;
  VmProfile profile;
  profile.image = &spec.image;
  profile.osDisk = &spec.osDisk;
  profile.dataDisks = &spec.dataDisks;
  profile.sshPublicKey = spec.sshPublicKey;
  profile.bootstrapData = scope.bootstrapData;
  profile.vmName = scope.vmName();
  return profile;
}

// identity, priority and the rest that sit outside or beside the profiles.
void setOptions(const MachineScope& scope, Json& body, Json& props) {
  const auto& spec = scope.machine->spec;
  if (spec.identity == "SystemAssigned") {
    body["identity"] = {{"type", "SystemAssigned"}};
  } else if (spec.identity == "UserAssigned") {
    Json ids = Json::object();
    for (const auto& identity : spec.userAssignedIdentities) {
      std::string id = identity.providerID;
      if (id.starts_with("azure://")) {
        id = id.substr(std::string_view("azure://").size());
      }
      ids[id] = Json::object();
    }
    body["identity"] = {{"type", "UserAssigned"}, {"userAssignedIdentities", std::move(ids)}};
  }
  if (spec.spotVMOptions) {
    props["priority"] = "Spot";
    props["evictionPolicy"] = spec.spotVMOptions->evictionPolicy.value_or("Deallocate");
    props["billingProfile"] = {
        {"maxPrice", spec.spotVMOptions->maxPrice ? spec.spotVMOptions->maxPrice->asDouble() : -1}};
  }
  if (spec.securityProfile) {
    Json security = Json::object();
    if (spec.securityProfile->encryptionAtHost) {
      security["encryptionAtHost"] = *spec.securityProfile->encryptionAtHost;
    }
    if (spec.securityProfile->securityType) {
      security["securityType"] = *spec.securityProfile->securityType;
    }
    if (const auto& uefi = spec.securityProfile->uefiSettings) {
      Json u = Json::object();
      if (uefi->secureBootEnabled) {
        u["secureBootEnabled"] = *uefi->secureBootEnabled;
      }
      if (uefi->vTpmEnabled) {
        u["vTpmEnabled"] = *uefi->vTpmEnabled;
      }
      security["uefiSettings"] = std::move(u);
    }
    props["securityProfile"] = std::move(security);
  }
  if (spec.additionalCapabilities && spec.additionalCapabilities->ultraSSDEnabled) {
    props["additionalCapabilities"] = {
        {"ultraSSDEnabled", *spec.additionalCapabilities->ultraSSDEnabled}};
  }
  // Managed boot diagnostics unless the machine says otherwise (the CAPZ webhook's default).
  Json boot = {{"enabled", true}};
  if (spec.diagnostics && spec.diagnostics->boot) {
    const auto& b = *spec.diagnostics->boot;
    if (b.storageAccountType == "Disabled") {
      boot = {{"enabled", false}};
    } else if (b.storageAccountType == "UserManaged" && b.userManaged) {
      boot = {{"enabled", true}, {"storageUri", b.userManaged->storageAccountURI}};
    }
  }
  props["diagnosticsProfile"] = {{"bootDiagnostics", std::move(boot)}};
  if (spec.capacityReservationGroupID) {
    props["capacityReservation"] = {
        {"capacityReservationGroup", {{"id", *spec.capacityReservationGroupID}}}};
  }
}

}  // namespace

Json publicIPBody(const MachineScope& scope, const std::string& name) {
  Json body = {
      {"location", scope.location()},
      {"tags", tagsOf(scope, "", name)},
      {"sku", {{"name", "Standard"}}},
      {"properties", {{"publicIPAddressVersion", "IPv4"}, {"publicIPAllocationMethod", "Static"}}}};
  if (auto zone = scope.failureDomain()) {
    body["zones"] = Json::array({*zone});
  }
  return body;
}

Json nicBody(const MachineScope& scope, const NicParams& nic) {
  Json configs = Json::array();
  const int count = std::max(1, nic.privateIPConfigs);
  for (int i = 0; i < count; ++i) {
    Json props = {{"primary", i == 0},
                  {"privateIPAllocationMethod", "Dynamic"},
                  {"subnet", {{"id", nic.subnetId}}}};
    if (i == 0 && nic.publicIPId) {
      props["publicIPAddress"] = {{"id", *nic.publicIPId}};
    }
    if (i == 0 && !nic.backendPoolIds.empty()) {
      Json pools = Json::array();
      for (const auto& id : nic.backendPoolIds) {
        pools.push_back({{"id", id}});
      }
      props["loadBalancerBackendAddressPools"] = std::move(pools);
    }
    configs.push_back(
        {{"name", i == 0 ? std::string("pipConfig") : fmt::format("ipConfigV4-{}", i)},
         {"properties", std::move(props)}});
  }
  Json props = {{"enableAcceleratedNetworking", nic.acceleratedNetworking},
                {"enableIPForwarding", scope.machine->spec.enableIPForwarding},
                {"ipConfigurations", std::move(configs)}};
  if (!scope.machine->spec.dnsServers.empty()) {
    props["dnsSettings"] = {{"dnsServers", scope.machine->spec.dnsServers}};
  }
  return {{"location", scope.location()},
          {"tags", tagsOf(scope, "", nic.name)},
          {"properties", std::move(props)}};
}

Json availabilitySetBody(const MachineScope& scope, const std::string& name) {
  // Two fault domains: what every region offers (CAPZ asks the SKU API for the maximum).
  return {{"location", scope.location()},
          {"tags", tagsOf(scope, "", name)},
          {"sku", {{"name", "Aligned"}}},
          {"properties", {{"platformFaultDomainCount", 2}, {"platformUpdateDomainCount", 5}}}};
}

core::Result<Json> vmBody(const MachineScope& scope, const std::vector<std::string>& nicIds,
                          const std::optional<std::string>& availabilitySetId) {
  Json body = {{"location", scope.location()},
               {"tags", tagsOf(scope, scope.role(), scope.vmName())}};
  Json props = {{"hardwareProfile", {{"vmSize", scope.machine->spec.vmSize}}}};
  const VmProfile profile = profileOf(scope);
  props["storageProfile"] = storageProfile(profile, body);
  auto os = osProfile(profile);
  if (!os) {
    return tl::unexpected(os.error().wrap("spec"));
  }
  if (scope.machine->spec.disableExtensionOperations.value_or(false)) {
    (*os)["allowExtensionOperations"] = false;
  }
  props["osProfile"] = std::move(*os);
  Json nics = Json::array();
  for (size_t i = 0; i < nicIds.size(); ++i) {
    nics.push_back({{"id", nicIds[i]}, {"properties", {{"primary", i == 0}}}});
  }
  props["networkProfile"] = {{"networkInterfaces", std::move(nics)}};
  if (availabilitySetId) {
    props["availabilitySet"] = {{"id", *availabilitySetId}};
  }
  setOptions(scope, body, props);
  if (auto zone = scope.failureDomain()) {
    body["zones"] = Json::array({*zone});
  }
  body["properties"] = std::move(props);
  return body;
}

Json extensionBody(const MachineScope& scope, const ExtensionParams& extension) {
  Json props = {{"publisher", extension.publisher},
                {"type", extension.name},
                {"typeHandlerVersion", extension.version},
                {"settings", extension.settings}};
  if (!extension.protectedSettings.empty()) {
    props["protectedSettings"] = extension.protectedSettings;
  }
  return {{"location", scope.location()}, {"properties", std::move(props)}};
}

std::optional<ExtensionParams> bootstrapExtension(const MachineScope& scope) {
  const std::string& cloud = scope.cluster->spec.azureEnvironment;
  if (!cloud.empty() && cloud != "AzurePublicCloud") {
    return std::nullopt;
  }
  ExtensionParams out;
  out.publisher = "Microsoft.Azure.ContainerUpstream";
  out.version = "1.0";
  if (isWindows(scope)) {
    out.name = "CAPZ.Windows.Bootstrapping";
    out.protectedSettings = {{"commandToExecute", kWindowsBootstrapCommand}};
  } else {
    out.name = "CAPZ.Linux.Bootstrapping";
    out.protectedSettings = {{"commandToExecute", kLinuxBootstrapCommand}};
  }
  return out;
}

}  // namespace nodewright::controllers::capz::azuremachine
