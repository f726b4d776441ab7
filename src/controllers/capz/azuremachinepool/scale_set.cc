#include "controllers/capz/azuremachinepool/scale_set.h"

#include <fmt/format.h>

#include "controllers/capz/arm_resource.h"
#include "controllers/capz/azuremachine/bodies.h"
#include "controllers/capz/azuremachine/specs.h"

namespace nodewright::controllers::capz::azuremachinepool {
namespace {

using api::Json;

// The scale set as it should be. Up to date when ARM's copy holds every field of the model
// except the secrets ARM never returns (custom data, admin password, extensions' protected
// settings): comparing those would PUT the scale set on every reconcile.
class ScaleSetResource final : public lro::ResourceSpec {
 public:
  ScaleSetResource(lro::ResourceRef ref, Json body) : ref_(std::move(ref)), body_(std::move(body)) {
    comparable_ = body_;
    Json& profile = comparable_["properties"]["virtualMachineProfile"];
    Json& os = profile["osProfile"];
    os.erase("customData");
    os.erase("adminPassword");
    Json& extensions = profile["extensionProfile"]["extensions"];
    if (extensions.is_array()) {
      for (Json& extension : extensions) {
        if (auto props = extension.find("properties");
            props != extension.end() && props->is_object()) {
          props->erase("protectedSettings");
        }
      }
    }
  }
  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<Json>> parameters(const Json& existing) const override {
    if (!existing.is_null() && containsJson(existing, comparable_)) {
      return std::optional<Json>();
    }
    return std::optional<Json>(body_);
  }

 private:
  lro::ResourceRef ref_;
  Json body_;
  Json comparable_;
};

lro::ResourceRef refFor(const PoolScope& scope, std::string id, std::string service,
                        std::string name) {
  lro::ResourceRef ref;
  ref.id = std::move(id);
  ref.resourceGroup = scope.cluster->spec.resourceGroup;
  ref.serviceName = std::move(service);
  ref.name = std::move(name);
  return ref;
}

core::Result<std::string> nodeSubnetId(const PoolScope& scope) {
  const auto& network = scope.cluster->spec.networkSpec;
  std::string name = scope.pool->spec.template_.subnetName;
  if (!scope.pool->spec.template_.networkInterfaces.empty()) {
    name = scope.pool->spec.template_.networkInterfaces.front().subnetName;
  }
  if (name.empty()) {
    const api::capz::SubnetSpec* subnet = network.subnetWithRole("node");
    if (subnet == nullptr) {
      return tl::unexpected(core::Error::invalid("the AzureCluster has no subnet with role node"));
    }
    name = subnet->name;
  }
  const std::string& group = network.vnet.resourceGroup.empty() ? scope.cluster->spec.resourceGroup
                                                                : network.vnet.resourceGroup;
  return resourceId(scope.cluster->spec.subscriptionID, group,
                    fmt::format("Microsoft.Network/virtualNetworks/{}/subnets", network.vnet.name),
                    name);
}

Json extensionProfile(const PoolScope& scope) {
  const auto& t = scope.pool->spec.template_;
  Json extensions = Json::array();
  auto add = [&](const std::string& name, const std::string& publisher, const std::string& version,
                 Json settings, Json protectedSettings) {
    Json props = {{"publisher", publisher},
                  {"type", name},
                  {"typeHandlerVersion", version},
                  {"settings", std::move(settings)}};
    if (!protectedSettings.empty()) {
      props["protectedSettings"] = std::move(protectedSettings);
    }
    extensions.push_back({{"name", name}, {"properties", std::move(props)}});
  };
  for (const auto& e : t.vmExtensions) {
    add(e.name, e.publisher, e.version, Json(e.settings), Json(e.protectedSettings));
  }
  const std::string& cloud = scope.cluster->spec.azureEnvironment;
  if (!t.disableVMBootstrapExtension.value_or(false) &&
      (cloud.empty() || cloud == "AzurePublicCloud")) {
    const bool windows = t.osDisk.osType == "Windows";
    add(windows ? "CAPZ.Windows.Bootstrapping" : "CAPZ.Linux.Bootstrapping",
        "Microsoft.Azure.ContainerUpstream", "1.0", Json::object(),
        {{"commandToExecute",
          windows ? "powershell.exe -Command \"for ($i = 0; $i -lt 1200; $i++) { if (Test-Path "
                    "'C:/k/bootstrap-success.complete') { exit 0 }; Start-Sleep -Seconds 1 }; "
                    "exit 1\""
                  : "for i in $(seq 1 1200); do test -f "
                    "/run/cluster-api/bootstrap-success.complete && break; if [ $i -eq 1200 ]; "
                    "then exit 1; else sleep 1; fi; done"}});
  }
  return {{"extensions", std::move(extensions)}};
}

const Json* member(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() ? &*it : nullptr;
}

std::string text(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string scaleSetId(const PoolScope& scope) {
  return resourceId(scope.cluster->spec.subscriptionID, scope.cluster->spec.resourceGroup,
                    "Microsoft.Compute/virtualMachineScaleSets", scope.name());
}

std::string instanceResourceId(const PoolScope& scope, const std::string& instanceID) {
  return fmt::format("{}/virtualMachines/{}", scaleSetId(scope), instanceID);
}

core::Result<Json> scaleSetBody(const PoolScope& scope) {
  const auto& spec = scope.pool->spec;
  const auto& t = spec.template_;
  azuremachine::VmProfile profile;
  profile.image = &t.image;
  profile.osDisk = &t.osDisk;
  profile.dataDisks = &t.dataDisks;
  profile.sshPublicKey = t.sshPublicKey;
  profile.bootstrapData = scope.bootstrapData;
  profile.computerNamePrefix = scope.name();
  api::capz::Tags additional = scope.cluster->spec.additionalTags;
  for (const auto& [k, v] : spec.additionalTags) {
    additional[k] = v;
  }
  Json body = {{"location", spec.location.empty() ? scope.cluster->spec.location : spec.location},
               {"tags", Json(ownedTags(scope.clusterName, "node", scope.name(), additional))},
               {"sku", {{"name", t.vmSize}, {"tier", "Standard"}, {"capacity", scope.replicas}}}};
  Json vmProfile = Json::object();
  vmProfile["storageProfile"] = azuremachine::storageProfile(profile, body);
  auto os = azuremachine::osProfile(profile);
  if (!os) {
    return tl::unexpected(os.error().wrap("spec.template"));
  }
  vmProfile["osProfile"] = std::move(*os);
  auto subnet = nodeSubnetId(scope);
  if (!subnet) {
    return tl::unexpected(subnet.error());
  }
  const bool accelerated = !t.networkInterfaces.empty()
                               ? t.networkInterfaces.front().acceleratedNetworking.value_or(false)
                               : t.acceleratedNetworking.value_or(false);
  vmProfile["networkProfile"] = {
      {"networkInterfaceConfigurations",
       Json::array(
           {{{"name", scope.name() + "-nic"},
             {"properties",
              {{"primary", true},
               {"enableAcceleratedNetworking", accelerated},
               {"ipConfigurations", Json::array({{{"name", "ipConfig0"},
                                                  {"properties",
                                                   {{"primary", true},
                                                    {"privateIPAddressVersion", "IPv4"},
                                                    {"subnet", {{"id", *subnet}}}}}}})}}}}})}};
  vmProfile["extensionProfile"] = extensionProfile(scope);
  vmProfile["diagnosticsProfile"] = {{"bootDiagnostics", {{"enabled", true}}}};
  if (t.spotVMOptions) {
    vmProfile["priority"] = "Spot";
    vmProfile["evictionPolicy"] = t.spotVMOptions->evictionPolicy.value_or("Deallocate");
    vmProfile["billingProfile"] = {
        {"maxPrice", t.spotVMOptions->maxPrice ? t.spotVMOptions->maxPrice->asDouble() : -1}};
  }
  Json props = {{"orchestrationMode",
                 spec.orchestrationMode.empty() ? std::string("Uniform") : spec.orchestrationMode},
                {"upgradePolicy", {{"mode", "Manual"}}},
                {"overprovision", false},
                {"singlePlacementGroup", false},
                {"virtualMachineProfile", std::move(vmProfile)}};
  if (spec.platformFaultDomainCount) {
    props["platformFaultDomainCount"] = *spec.platformFaultDomainCount;
  }
  body["properties"] = std::move(props);
  if (!scope.failureDomains.empty()) {
    body["zones"] = scope.failureDomains;
  }
  return body;
}

core::Result<std::vector<Service>> scaleSetServices(const PoolScope& scope) {
  auto body = scaleSetBody(scope);
  if (!body) {
    return tl::unexpected(body.error());
  }
  Service set;
  set.name = kScaleSetsService;
  set.conditionType = kScaleSetRunningCondition;
  set.specs.push_back(std::make_shared<ScaleSetResource>(
      refFor(scope, scaleSetId(scope), kScaleSetsService, scope.name()), std::move(*body)));
  return std::vector<Service>{std::move(set)};
}

std::vector<Service> scaleSetDeleteServices(const PoolScope& scope) {
  Service set;
  set.name = kScaleSetsService;
  set.conditionType = kScaleSetRunningCondition;
  set.specs.push_back(std::make_shared<azuremachine::DeleteOnlyResource>(
      refFor(scope, scaleSetId(scope), kScaleSetsService, scope.name())));
  return {std::move(set)};
}

std::vector<Service> poolMachineDeleteServices(const PoolScope& scope,
                                               const api::capz::AzureMachinePoolMachine& machine) {
  Service vm;
  vm.name = kScaleSetVMsService;
  vm.conditionType = kVMRunningCondition;
  vm.specs.push_back(std::make_shared<azuremachine::DeleteOnlyResource>(
      refFor(scope, instanceResourceId(scope, machine.spec.instanceID), kScaleSetVMsService,
             machine.metadata.name)));
  return {std::move(vm)};
}

api::capz::AzureMachinePoolInstanceStatus instanceStatus(const Json& instance) {
  api::capz::AzureMachinePoolInstanceStatus out;
  out.providerID = "azure://" + text(instance, "id");
  out.instanceID = text(instance, "instanceId");
  // Reads that tolerate any shape: json's value() throws on a non-object or a wrong type.
  const Json* props = member(instance, "properties");
  const std::string state = props != nullptr ? text(*props, "provisioningState") : "";
  if (!state.empty()) {
    out.provisioningState = state;
  }
  const Json* os = props != nullptr ? member(*props, "osProfile") : nullptr;
  out.instanceName = os != nullptr ? text(*os, "computerName") : "";
  const Json* latest = props != nullptr ? member(*props, "latestModelApplied") : nullptr;
  out.latestModelApplied = latest != nullptr && latest->is_boolean() && latest->get<bool>();
  return out;
}

}  // namespace nodewright::controllers::capz::azuremachinepool
