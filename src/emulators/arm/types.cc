#include "emulators/arm/types.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>

namespace nodewright::emulators::arm {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// A long-tailed latency with median `p50` and 99th percentile `p99`.
Latency around(std::chrono::microseconds p50, std::chrono::microseconds p99) {
  return Latency::logNormal(p50, p99);
}

// Chained setters, so each type below reads as one short statement.
struct Builder {
  ResourceType& t;
  Builder& child(std::string parent) {
    t.parent = std::move(parent);
    t.tracked = false;
    return *this;
  }
  Builder& sync() {
    t.syncPut = true;
    t.syncDelete = true;
    return *this;
  }
  Builder& asyncPatch(Latency latency) {
    t.syncPatch = false;
    t.patchLatency = latency;
    return *this;
  }
  Builder& latencies(Latency put, Latency del) {
    t.putLatency = put;
    t.deleteLatency = del;
    return *this;
  }
  Builder& refs(std::vector<ResourceType::Reference> references) {
    t.references = std::move(references);
    return *this;
  }
  Builder& inUse(std::string code) {
    t.inUseCode = std::move(code);
    return *this;
  }
  Builder& inlineIn(std::string field) {
    t.inlineField = std::move(field);
    return *this;
  }
  Builder& noProvisioningState() {
    t.provisioningState = false;
    return *this;
  }
};

std::vector<ResourceType> buildTypes() {
  std::vector<ResourceType> types;
  types.reserve(32);
  auto add = [&](std::string name, std::string group) {
    ResourceType& t = types.emplace_back();
    t.name = std::move(name);
    t.group = std::move(group);
    return Builder{t};
  };
  const std::string vnet = "Microsoft.Network/virtualNetworks";
  const std::string zone = "Microsoft.Network/privateDnsZones";
  const std::string lb = "Microsoft.Network/loadBalancers";
  const std::string vm = "Microsoft.Compute/virtualMachines";
  const std::string vmss = "Microsoft.Compute/virtualMachineScaleSets";

  // Creating a group is synchronous; deleting one deletes everything in it.
  add(std::string(kResourceGroups), "ResourceGroups")
      .latencies(Latency::fixed({}), around(seconds(15), seconds(60)));
  types.back().syncPut = true;

  add(vnet, "VirtualNetworks")
      .latencies(around(seconds(4), seconds(12)), around(seconds(6), seconds(20)));
  add(vnet + "/subnets", "Subnets")
      .child(vnet)
      .inlineIn("subnets")
      .inUse("InUseSubnetCannotBeDeleted")
      .refs({{"properties.networkSecurityGroup.id"},
             {"properties.routeTable.id"},
             {"properties.natGateway.id"}})
      .latencies(around(seconds(3), seconds(10)), around(seconds(4), seconds(15)));
  add("Microsoft.Network/networkSecurityGroups", "NetworkSecurityGroups")
      .inUse("InUseNetworkSecurityGroupCannotBeDeleted")
      .latencies(around(seconds(2), seconds(8)), around(seconds(3), seconds(10)));
  add("Microsoft.Network/routeTables", "RouteTables")
      .inUse("InUseRouteTableCannotBeDeleted")
      .latencies(around(seconds(2), seconds(8)), around(seconds(3), seconds(10)));
  add("Microsoft.Network/publicIPAddresses", "PublicIPAddresses")
      .inUse("PublicIPAddressInUse")
      .latencies(around(seconds(3), seconds(10)), around(seconds(5), seconds(20)));
  add("Microsoft.Network/natGateways", "NatGateways")
      .inUse("InUseNatGatewayCannotBeDeleted")
      .refs({{"properties.publicIpAddresses[].id"}})
      .latencies(around(seconds(20), seconds(45)), around(seconds(20), seconds(45)));
  add(lb, "LoadBalancers")
      .refs({{"properties.frontendIPConfigurations[].properties.publicIPAddress.id"},
             {"properties.frontendIPConfigurations[].properties.subnet.id"}})
      .latencies(around(seconds(3), seconds(15)), around(seconds(5), seconds(20)));
  add(lb + "/inboundNatRules", "InboundNatRules")
      .child(lb)
      .inlineIn("inboundNatRules")
      .latencies(around(seconds(3), seconds(10)), around(seconds(3), seconds(10)));
  add(zone, "PrivateZones")
      .latencies(around(seconds(30), seconds(90)), around(seconds(30), seconds(90)));
  add(zone + "/virtualNetworkLinks", "VirtualNetworkLinks")
      .child(zone)
      .refs({{"properties.virtualNetwork.id", true}})
      .latencies(around(seconds(30), seconds(90)), around(seconds(30), seconds(90)));
  for (const char* record : {"A", "AAAA", "CNAME", "MX", "PTR", "SRV", "TXT"}) {
    add(zone + "/" + record, "RecordSets").child(zone).sync().noProvisioningState();
  }
  add("Microsoft.Network/bastionHosts", "BastionHosts")
      .refs({{"properties.ipConfigurations[].properties.subnet.id", true},
             {"properties.ipConfigurations[].properties.publicIPAddress.id"}})
      .asyncPatch(around(seconds(30), seconds(90)))
      .latencies(around(minutes(5), minutes(10)), around(minutes(3), minutes(8)));
  add("Microsoft.Network/networkInterfaces", "NetworkInterfaces")
      .inUse("NicInUse")
      .refs({{"properties.ipConfigurations[].properties.subnet.id", true},
             {"properties.ipConfigurations[].properties.publicIPAddress.id"},
             {"properties.networkSecurityGroup.id"}})
      .latencies(around(seconds(2), seconds(6)), around(seconds(3), seconds(10)));

  add("Microsoft.Compute/availabilitySets", "AvailabilitySets")
      .sync()
      .noProvisioningState()
      .inUse("AvailabilitySetInUse");
  add("Microsoft.Compute/disks", "Disks")
      .inUse("OperationNotAllowed")
      .asyncPatch(around(seconds(5), seconds(20)))
      .latencies(around(seconds(4), seconds(15)), around(seconds(5), seconds(20)));
  add(vm, "VirtualMachines")
      .refs({{"properties.networkProfile.networkInterfaces[].id", true},
             {"properties.availabilitySet.id"},
             {"properties.storageProfile.dataDisks[].managedDisk.id"}})
      .asyncPatch(around(seconds(10), seconds(40)))
      .latencies(around(seconds(45), seconds(120)), around(seconds(30), seconds(90)));
  add(vm + "/extensions", "VirtualMachineExtensions")
      .child(vm)
      .asyncPatch(around(seconds(30), seconds(90)))
      .latencies(around(seconds(60), seconds(180)), around(seconds(30), seconds(90)));
  add(vmss, "VirtualMachineScaleSets")
      .refs({{"properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[]."
              "properties.ipConfigurations[].properties.subnet.id"}})
      .asyncPatch(around(seconds(20), seconds(60)))
      .latencies(around(seconds(60), seconds(180)), around(seconds(45), seconds(120)));
  add(vmss + "/virtualMachines", "VirtualMachineScaleSetVMs")
      .child(vmss)
      .latencies(around(seconds(30), seconds(90)), around(seconds(30), seconds(90)));
  types.back().createdByParent = true;

  // Role assignments sit under any scope; their parent is checked from the path instead.
  add(std::string(kRoleAssignments), "RoleAssignments").sync().noProvisioningState();
  types.back().tracked = false;
  return types;
}

}  // namespace

std::string ResourceType::key() const {
  return core::lowerAscii(name);
}

int ResourceType::depth() const {
  return static_cast<int>(std::count(name.begin(), name.end(), '/'));
}

const std::vector<ResourceType>& resourceTypes() {
  static const std::vector<ResourceType> types = buildTypes();
  return types;
}

const ResourceType* findType(std::string_view name) {
  for (const ResourceType& t : resourceTypes()) {
    if (core::equalsIgnoreCase(t.name, name)) {
      return &t;
    }
  }
  return nullptr;
}

const ResourceType& resourceGroupType() {
  return resourceTypes().front();
}

std::vector<const ResourceType*> childTypes(const ResourceType& parent) {
  std::vector<const ResourceType*> out;
  for (const ResourceType& t : resourceTypes()) {
    if (t.parent == parent.name) {
      out.push_back(&t);
    }
  }
  return out;
}

std::string putOp(const ResourceType& type) {
  return "arm:" + type.group + "_CreateOrUpdate";
}

std::string deleteOp(const ResourceType& type) {
  return "arm:" + type.group + "_Delete";
}

std::string patchOp(const ResourceType& type) {
  return "arm:" + type.group + "_Update";
}

std::map<std::string, Latency, std::less<>> defaultLatencies() {
  std::map<std::string, Latency, std::less<>> out;
  for (const ResourceType& t : resourceTypes()) {
    if (!t.syncPut) {
      out.emplace(putOp(t), t.putLatency);
    }
    if (!t.syncDelete) {
      out.emplace(deleteOp(t), t.deleteLatency);
    }
    if (!t.syncPatch) {
      out.emplace(patchOp(t), t.patchLatency);
    }
  }
  return out;
}

}  // namespace nodewright::emulators::arm
