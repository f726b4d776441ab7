#include "controllers/capz/azuremachine/services.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/capz/conditions.h"
#include "controllers/capz/arm_resource.h"
#include "controllers/capz/azuremachine/bodies.h"
#include "controllers/capz/azuremachine/specs.h"
#include "controllers/capz/futures.h"

namespace nodewright::controllers::capz::azuremachine {
namespace {

using api::Json;
using SpecPtr = std::shared_ptr<const lro::ResourceSpec>;

// The Contributor role, which CAPZ's webhook gives a system-assigned identity by default.
constexpr const char* kContributorRole = "b24988ac-6180-42a0-ab88-20f7382dd24c";

lro::ResourceRef refFor(const MachineScope& scope, std::string id, std::string service,
                        std::string name) {
  lro::ResourceRef ref;
  ref.id = std::move(id);
  ref.resourceGroup = scope.resourceGroup();
  ref.serviceName = std::move(service);
  ref.name = std::move(name);
  return ref;
}

std::string idOf(const MachineScope& scope, std::string_view type, std::string_view name) {
  return resourceId(scope.subscription(), scope.resourceGroup(), type, name);
}

// A resource this service only creates; on delete the body is never used.
SpecPtr createOnly(lro::ResourceRef ref, Json body) {
  return std::make_shared<CreateOnlyResource>(std::move(ref), std::move(body));
}

struct NicPlan {
  std::string name;
  std::string subnetName;
  int privateIPConfigs = 1;
  bool acceleratedNetworking = false;
};

// spec.networkInterfaces, or the deprecated single-NIC fields.
std::vector<NicPlan> nicPlans(const MachineScope& scope) {
  const auto& spec = scope.machine->spec;
  std::vector<NicPlan> out;
  const bool multiple = spec.networkInterfaces.size() > 1;
  for (size_t i = 0; i < spec.networkInterfaces.size(); ++i) {
    const auto& nic = spec.networkInterfaces[i];
    out.push_back({nicName(scope.vmName(), i, multiple), nic.subnetName,
                   std::max(1, nic.privateIPConfigs), nic.acceleratedNetworking.value_or(false)});
  }
  if (out.empty()) {
    out.push_back({nicName(scope.vmName(), 0, false), spec.subnetName, 1,
                   spec.acceleratedNetworking.value_or(false)});
  }
  return out;
}

core::Result<std::string> subnetId(const MachineScope& scope, const std::string& named) {
  const auto& network = scope.cluster->spec.networkSpec;
  std::string name = named;
  if (name.empty()) {
    const api::capz::SubnetSpec* subnet = network.subnetWithRole(scope.role());
    if (subnet == nullptr) {
      return tl::unexpected(core::Error::invalid(
          fmt::format("the AzureCluster has no subnet with role {}", scope.role())));
    }
    name = subnet->name;
  }
  const std::string& group =
      network.vnet.resourceGroup.empty() ? scope.resourceGroup() : network.vnet.resourceGroup;
  return resourceId(scope.subscription(), group,
                    fmt::format("Microsoft.Network/virtualNetworks/{}/subnets", network.vnet.name),
                    name);
}

// The load balancer pools the first NIC joins: the API server's for control-plane machines,
// the node outbound one for nodes that have no public IP of their own.
std::vector<std::string> backendPools(const MachineScope& scope) {
  const auto& network = scope.cluster->spec.networkSpec;
  std::vector<std::string> out;
  auto add = [&](const std::optional<api::capz::LoadBalancerSpec>& lb) {
    if (lb && !lb->name.empty() && !lb->backendPool.name.empty()) {
      out.push_back(idOf(
          scope, fmt::format("Microsoft.Network/loadBalancers/{}/backendAddressPools", lb->name),
          lb->backendPool.name));
    }
  };
  if (scope.controlPlane()) {
    add(network.apiServerLB);
    add(network.controlPlaneOutboundLB);
  } else if (!scope.machine->spec.allocatePublicIP) {
    add(network.nodeOutboundLB);
  }
  return out;
}

Service service(std::string name, std::string condition, std::vector<SpecPtr> specs,
                std::vector<std::string> dependsOn) {
  Service s;
  s.name = std::move(name);
  s.conditionType = std::move(condition);
  s.specs = std::move(specs);
  s.dependsOn = std::move(dependsOn);
  return s;
}

std::vector<ExtensionParams> extensions(const MachineScope& scope) {
  std::vector<ExtensionParams> out;
  if (scope.machine->spec.disableExtensionOperations.value_or(false)) {
    return out;
  }
  for (const auto& e : scope.machine->spec.vmExtensions) {
    ExtensionParams p;
    p.name = e.name;
    p.publisher = e.publisher;
    p.version = e.version;
    p.settings = Json(e.settings);
    p.protectedSettings = Json(e.protectedSettings);
    out.push_back(std::move(p));
  }
  if (auto bootstrap = bootstrapExtension(scope)) {
    out.push_back(std::move(*bootstrap));
  }
  return out;
}

const char* const kVirtualMachines = "Microsoft.Compute/virtualMachines";

}  // namespace

lro::Outcome removeAvailabilitySetIfUnused(lro::Engine& engine, const MachineScope& scope,
                                           api::capz::Futures& futures) {
  auto name = availabilitySetName(scope);
  if (!name) {
    lro::Outcome none;
    none.kind = lro::Outcome::Kind::Done;
    return none;
  }
  const std::string id = idOf(scope, "Microsoft.Compute/availabilitySets", *name);
  DeleteOnlyResource set(refFor(scope, id, kAvailabilitySetsService, *name));
  lro::Outcome o = withRecords(
      futures, [&](lro::OperationRecords& records) { return engine.remove(set, records); });
  if (!o.done() && o.errorCode.find("InUse") != std::string::npos) {
    o.kind = lro::Outcome::Kind::Done;  // the last machine of the deployment deletes it
    o.message.clear();
  }
  return o;
}

std::string vmId(const MachineScope& scope) {
  return idOf(scope, kVirtualMachines, scope.vmName());
}

std::optional<bool> vmExists(lro::Engine& engine, const MachineScope& scope) {
  // A spec that never asks for a write: the engine only reads. Its own records, so nothing the
  // machine has parked is touched.
  DeleteOnlyResource vm(refFor(scope, vmId(scope), kVirtualMachineService, scope.vmName()));
  lro::OperationRecords scratch;
  lro::Outcome read = engine.createOrUpdate(vm, scratch);
  if (!read.done()) {
    return std::nullopt;
  }
  return read.result.is_object();
}

bool needsRoleAssignment(const MachineScope& scope) {
  return scope.machine->spec.identity == "SystemAssigned";
}

std::vector<Service> roleAssignmentServices(const MachineScope& scope) {
  if (!needsRoleAssignment(scope)) {
    return {};
  }
  const auto& spec = scope.machine->spec;
  api::capz::SystemAssignedIdentityRole role =
      spec.systemAssignedIdentityRole.value_or(api::capz::SystemAssignedIdentityRole{});
  if (role.name.empty()) {
    role.name = !spec.roleAssignmentName.empty() ? spec.roleAssignmentName
                                                 : stableGuid("roleassignment/" + vmId(scope));
  }
  if (role.scope.empty()) {
    role.scope = resourceGroupId(scope.subscription(), scope.resourceGroup());
  }
  if (role.definitionID.empty()) {
    role.definitionID =
        fmt::format("/subscriptions/{}/providers/Microsoft.Authorization/roleDefinitions/{}",
                    scope.subscription(), kContributorRole);
  }
  auto ref = refFor(
      scope,
      fmt::format("{}/providers/Microsoft.Authorization/roleAssignments/{}", role.scope, role.name),
      kRoleAssignmentsService, role.name);
  std::vector<SpecPtr> specs{std::make_shared<RoleAssignmentResource>(
      std::move(ref), role.definitionID, scope.principalId)};
  return {service(kRoleAssignmentsService, api::capz::kRoleAssignmentReadyCondition,
                  std::move(specs), {kVirtualMachineService})};
}

core::Result<std::vector<Service>> machineServices(const MachineScope& scope, Purpose purpose) {
  const bool create = purpose == Purpose::Create;
  const auto& spec = scope.machine->spec;
  std::vector<Service> out;

  std::optional<std::string> publicIPId;
  if (spec.allocatePublicIP) {
    const std::string name = nodePublicIPName(scope.vmName());
    publicIPId = idOf(scope, "Microsoft.Network/publicIPAddresses", name);
    out.push_back(service(kPublicIPsService, api::capz::kPublicIPsReadyCondition,
                          {createOnly(refFor(scope, *publicIPId, kPublicIPsService, name),
                                      create ? publicIPBody(scope, name) : Json())},
                          {}));
  }

  std::vector<SpecPtr> nics;
  std::vector<std::string> nicIds;
  const std::vector<std::string> pools = backendPools(scope);
  for (const NicPlan& plan : nicPlans(scope)) {
    const std::string id = idOf(scope, "Microsoft.Network/networkInterfaces", plan.name);
    Json body;
    if (create) {
      auto subnet = subnetId(scope, plan.subnetName);
      if (!subnet) {
        return tl::unexpected(subnet.error());
      }
      NicParams params;
      params.name = plan.name;
      params.subnetId = *subnet;
      params.privateIPConfigs = plan.privateIPConfigs;
      params.acceleratedNetworking = plan.acceleratedNetworking;
      if (nicIds.empty()) {
        params.publicIPId = publicIPId;
        params.backendPoolIds = pools;
      }
      body = nicBody(scope, params);
    }
    nicIds.push_back(id);
    nics.push_back(createOnly(refFor(scope, id, kNetworkInterfacesService, plan.name), body));
  }
  out.push_back(service(kNetworkInterfacesService, kNetworkInterfacesReadyCondition,
                        std::move(nics), {kPublicIPsService}));

  std::optional<std::string> availabilitySetId;
  if (auto name = availabilitySetName(scope)) {
    availabilitySetId = idOf(scope, "Microsoft.Compute/availabilitySets", *name);
    // Shared by every machine of the deployment: a machine's delete leaves it to
    // removeAvailabilitySetIfUnused (ARM refuses while other VMs are in it).
    Service set =
        service(kAvailabilitySetsService, api::capz::kAvailabilitySetReadyCondition,
                {createOnly(refFor(scope, *availabilitySetId, kAvailabilitySetsService, *name),
                            create ? availabilitySetBody(scope, *name) : Json())},
                {});
    set.skipDelete = true;
    out.push_back(std::move(set));
  }

  // The VM creates its disks; they outlive it unless deleted after it.
  std::vector<SpecPtr> disks;
  if (!create) {
    std::vector<std::string> names{osDiskName(scope.vmName())};
    for (const auto& disk : spec.dataDisks) {
      names.push_back(dataDiskName(scope.vmName(), disk.nameSuffix));
    }
    for (const std::string& name : names) {
      disks.push_back(std::make_shared<DeleteOnlyResource>(
          refFor(scope, idOf(scope, "Microsoft.Compute/disks", name), kDisksService, name)));
    }
  }
  out.push_back(service(kDisksService, create ? "" : kDisksReadyCondition, std::move(disks), {}));

  const std::string vm = vmId(scope);
  Json vmParameters;
  if (create) {
    auto body = vmBody(scope, nicIds, availabilitySetId);
    if (!body) {
      return tl::unexpected(body.error());
    }
    vmParameters = std::move(*body);
  }
  out.push_back(
      service(kVirtualMachineService, kVMRunningCondition,
              {createOnly(refFor(scope, vm, kVirtualMachineService, scope.vmName()), vmParameters)},
              {kNetworkInterfacesService, kAvailabilitySetsService, kDisksService}));

  if (!create || scope.principalId) {
    for (Service& role : roleAssignmentServices(scope)) {
      out.push_back(std::move(role));
    }
  }

  std::vector<SpecPtr> extensionSpecs;
  for (const ExtensionParams& e : extensions(scope)) {
    extensionSpecs.push_back(createOnly(
        refFor(scope, fmt::format("{}/extensions/{}", vm, e.name), kVMExtensionsService, e.name),
        create ? extensionBody(scope, e) : Json()));
  }
  // Extensions go with the VM's delete, as in CAPZ.
  Service vmExtensions = service(kVMExtensionsService, kBootstrapSucceededCondition,
                                 std::move(extensionSpecs), {kVirtualMachineService});
  vmExtensions.skipDelete = true;
  out.push_back(std::move(vmExtensions));

  // Tags go with the VM's own delete.
  Service tags = service(
      kTagsService, "",
      {std::make_shared<VmTagsResource>(
          refFor(scope, vm, kTagsService, scope.vmName()),
          ownedTags(scope.clusterName, scope.role(), scope.vmName(), scope.additionalTags()))},
      {kVirtualMachineService});
  tags.skipDelete = true;
  out.push_back(std::move(tags));
  return out;
}

}  // namespace nodewright::controllers::capz::azuremachine
