#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "emulators/engine/latency.h"

// The ARM resource types the emulator serves, as data: where each sits (its parent), how its
// operations behave (synchronous or long-running, and how long), what it references and the
// error deleting a referenced one gives. Adding a type is a few lines in types.cc.
namespace nodewright::emulators::arm {

struct ResourceType {
  // "Microsoft.Network/virtualNetworks/subnets": namespace, then the type chain.
  std::string name;
  // The swagger operation group: "Subnets" gives the actions Subnets_CreateOrUpdate,
  // Subnets_Get, Subnets_Delete, Subnets_Update and Subnets_List (fault rules and stats use
  // them; latency entries are "arm:" + action).
  std::string group;
  std::string parent;  // the parent type's name; empty for top-level types

  // Top-level types carry a location and tags (ARM's "tracked" resources).
  bool tracked = true;
  // Whether PUT / PATCH / DELETE complete in the call (no async operation).
  bool syncPut = false;
  bool syncPatch = true;
  bool syncDelete = false;
  // Whether the body reports properties.provisioningState.
  bool provisioningState = true;
  // Instances come and go with the parent (scale-set VMs): PUT updates, never creates.
  bool createdByParent = false;
  // The parent's property that lists children inline ("subnets" of a virtual network): a
  // parent PUT creates them, and a GET of the parent shows them.
  std::string inlineField;

  // Resource ids in the body that must exist: dotted paths, "[]" for every array element
  // ("properties.ipConfigurations[].properties.subnet.id"). Required ones must be present.
  struct Reference {
    std::string path;
    bool required = false;
  };
  std::vector<Reference> references;
  // The 400 code when deleting this resource while another one references it.
  std::string inUseCode = "ResourceInUse";

  // Default emulated latencies of the long-running operations.
  Latency putLatency = Latency::fixed({});
  Latency deleteLatency = Latency::fixed({});
  Latency patchLatency = Latency::fixed({});

  std::string nameSpace() const { return name.substr(0, name.find('/')); }
  // "virtualNetworks/subnets"
  std::string typePath() const { return name.substr(name.find('/') + 1); }
  // The last segment: "subnets".
  std::string leaf() const { return name.substr(name.rfind('/') + 1); }
  // Lower-case name: the engine store's table of this type.
  std::string key() const;
  int depth() const;  // 1 for top-level types, 2 for their children
};

constexpr std::string_view kResourceGroups = "Microsoft.Resources/resourceGroups";
constexpr std::string_view kRoleAssignments = "Microsoft.Authorization/roleAssignments";

// Every type, parents before their children.
const std::vector<ResourceType>& resourceTypes();
// Case-insensitive; nullptr for an unknown type.
const ResourceType* findType(std::string_view name);
const ResourceType& resourceGroupType();
// The types whose parent is `parent`.
std::vector<const ResourceType*> childTypes(const ResourceType& parent);

// "arm:VirtualMachines_CreateOrUpdate", "arm:VirtualMachines_Delete", "arm:VirtualMachines_Update".
std::string putOp(const ResourceType& type);
std::string deleteOp(const ResourceType& type);
std::string patchOp(const ResourceType& type);

// Latencies per operation from the table: a VM about 45 s, a NAT gateway about 20 s, a bastion
// several minutes, most network resources a few seconds.
std::map<std::string, Latency, std::less<>> defaultLatencies();

}  // namespace nodewright::emulators::arm
