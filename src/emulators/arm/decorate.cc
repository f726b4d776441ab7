// What the resource providers add to a body on PUT (ids of sub-resources, GUIDs, addresses) and
// the checks that are specific to one type.
#include <cstdio>
#include <regex>

#include <fmt/format.h>

#include "core/text.h"
#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

using api::Json;

std::string str(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json* object(Json& o, const char* key) {
  if (!o.is_object()) {
    return nullptr;
  }
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

const Json* member(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

// What an earlier write generated, kept across updates.
std::string kept(const Json* existing, const char* field) {
  if (existing == nullptr) {
    return {};
  }
  auto props = existing->find("properties");
  return props != existing->end() ? str(*props, field) : std::string();
}

// A system-assigned identity gets its service principal when ARM accepts the resource, and keeps
// it across updates; a role assignment for it names that principal.
void assignSystemIdentity(Json& body, const Json* existing) {
  Json* identity = object(body, "identity");
  if (identity == nullptr || str(*identity, "type").find("SystemAssigned") == std::string::npos) {
    return;
  }
  const Json* before = existing != nullptr ? member(*existing, "identity") : nullptr;
  const std::string principal = before != nullptr ? str(*before, "principalId") : "";
  (*identity)["principalId"] = principal.empty() ? newUuid() : principal;
}

std::string ipv4(uint32_t v) {
  return fmt::format("{}.{}.{}.{}", v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
}

// Secrets a provider never returns.
void dropSecrets(Json* osProfile) {
  if (osProfile != nullptr) {
    osProfile->erase("adminPassword");
    osProfile->erase("customData");
  }
}

}  // namespace

ArmResult<void> ArmModel::validate(const ResourcePath& path, const Json& body) {
  const ResourceType& type = *path.type;
  const Json& props = body["properties"];
  std::string size;
  if (type.name == "Microsoft.Compute/virtualMachines") {
    const Json* hardware = props.contains("hardwareProfile") ? &props["hardwareProfile"] : nullptr;
    size = hardware ? str(*hardware, "vmSize") : std::string();
    if (size.empty()) {
      return armFail(400, "InvalidParameter",
                     "Required parameter 'hardwareProfile.vmSize' is missing (null).");
    }
  } else if (type.name == "Microsoft.Compute/virtualMachineScaleSets") {
    size = body.contains("sku") ? str(body["sku"], "name") : std::string();
    if (size.empty()) {
      return armFail(400, "InvalidParameter", "Required parameter 'sku.name' is missing (null).");
    }
    auto sku = body.find("sku");
    auto capacity = sku->find("capacity");
    if (capacity != sku->end() && (!capacity->is_number_integer() || capacity->get<int64_t>() < 0 ||
                                   capacity->get<int64_t>() > 1000)) {
      return armFail(400, "InvalidParameter",
                     "The value of parameter sku.capacity is invalid: it must be 0 to 1000.");
    }
  } else if (type.name == kRoleAssignments) {
    static const std::regex guid("^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$");
    if (!std::regex_match(path.name, guid)) {
      return armFail(400, "InvalidRoleAssignmentId",
                     fmt::format("The role assignment ID '{}' is not valid. The role assignment "
                                 "ID must be a GUID.",
                                 path.name));
    }
    const std::string role = str(props, "roleDefinitionId");
    const std::string principal = str(props, "principalId");
    if (role.empty() || principal.empty()) {
      return armFail(400, "InvalidParameter",
                     "Required parameters 'properties.roleDefinitionId' and "
                     "'properties.principalId' must be set.");
    }
    const std::string scopeKey = path.parentKey();
    const std::string self = path.key();
    auto same = engine_.store().list(type.key(), [&](const Resource& r) {
      const ArmResource& a = *r.as<ArmResource>();
      const Json& p = a.body["properties"];
      return a.parentKey == scopeKey && r.id != self &&
             core::equalsIgnoreCase(str(p, "roleDefinitionId"), role) &&
             core::equalsIgnoreCase(str(p, "principalId"), principal);
    });
    if (!same.empty()) {
      return armFail(409, "RoleAssignmentExists", "The role assignment already exists.");
    }
  }
  if (!size.empty() && !skus_.has(size)) {
    return armFail(400, "InvalidParameter",
                   fmt::format("The requested VM size {} is not available in the current "
                               "region. Find the available sizes with the "
                               "Microsoft.Compute/skus list.",
                               size));
  }
  return {};
}

ArmResult<void> ArmModel::decorate(const ResourcePath& path, Json& body, const Json* existing) {
  const ResourceType& type = *path.type;
  const std::string id = path.id;
  if (type.nameSpace() == "Microsoft.Network") {
    body["etag"] = fmt::format("W/\"{}\"", newUuid());
  }
  const bool instance = type.createdByParent && existing != nullptr;
  if (instance && existing->contains("instanceId")) {
    // SDKs drop read-only fields from what they PUT: what the scale set gave stays.
    body["instanceId"] = (*existing)["instanceId"];
  }
  if (type.nameSpace() == "Microsoft.Compute" && type.depth() == 1) {
    assignSystemIdentity(body, existing);
  }
  // Taken after the body's last new member: an ordered object moves its members on insertion.
  Json& props = body["properties"];
  if (type.nameSpace() == "Microsoft.Network") {
    if (type.tracked) {
      const std::string guid = kept(existing, "resourceGuid");
      props["resourceGuid"] = guid.empty() ? newUuid() : guid;
    }
    // Inline sub-resources (rules, pools, IP configurations) get ids under their resource.
    for (auto& [field, value] : props.items()) {
      if (!value.is_array()) {
        continue;
      }
      for (Json& item : value) {
        if (item.is_object() && item.contains("name") && item["name"].is_string()) {
          item["id"] = id + "/" + field + "/" + item["name"].get<std::string>();
        }
      }
    }
  }
  if (type.leaf() == "publicIPAddresses") {
    const bool standard =
        body.contains("sku") && core::equalsIgnoreCase(str(body["sku"], "name"), "Standard");
    if (str(props, "publicIPAllocationMethod").empty()) {
      props["publicIPAllocationMethod"] = standard ? "Static" : "Dynamic";
    }
    if (str(props, "publicIPAddressVersion").empty()) {
      props["publicIPAddressVersion"] = "IPv4";
    }
    std::string address = kept(existing, "ipAddress");
    if (address.empty()) {
      // 20.0.0.0/8 stands in for Azure's public ranges.
      address = ipv4((20u << 24) + 256 + nextPublicIp_++);
    }
    props["ipAddress"] = address;
  } else if (type.leaf() == "networkInterfaces" && props.contains("ipConfigurations") &&
             props["ipConfigurations"].is_array()) {
    Json& configs = props["ipConfigurations"];
    for (size_t i = 0; i < configs.size(); ++i) {
      if (Json* cp = object(configs[i], "properties")) {
        if (!cp->contains("primary")) {
          (*cp)["primary"] = i == 0;
        }
        if (str(*cp, "privateIPAllocationMethod").empty()) {
          (*cp)["privateIPAllocationMethod"] = "Dynamic";
        }
      }
    }
    if (auto assigned = assignPrivateAddresses(path, configs, existing); !assigned) {
      return assigned;
    }
  } else if (type.leaf() == "virtualMachines" && type.depth() == 1) {
    const std::string vmId = kept(existing, "vmId");
    props["vmId"] = vmId.empty() ? newUuid() : vmId;
    dropSecrets(object(props, "osProfile"));
  } else if (instance) {
    const std::string vmId = kept(existing, "vmId");
    if (!vmId.empty()) {
      props["vmId"] = vmId;
    }
    const Json* before = member(*existing, "properties");
    before = before != nullptr ? member(*before, "osProfile") : nullptr;
    const std::string computerName = before != nullptr ? str(*before, "computerName") : "";
    if (!computerName.empty()) {
      if (object(props, "osProfile") == nullptr) {
        props["osProfile"] = Json::object();
      }
      props["osProfile"]["computerName"] = computerName;
    }
    dropSecrets(object(props, "osProfile"));
  } else if (type.leaf() == "virtualMachineScaleSets") {
    const std::string uniqueId = kept(existing, "uniqueId");
    props["uniqueId"] = uniqueId.empty() ? newUuid() : uniqueId;
    if (Json* profile = object(props, "virtualMachineProfile")) {
      dropSecrets(object(*profile, "osProfile"));
    }
  } else if (type.leaf() == "disks") {
    const std::string uniqueId = kept(existing, "uniqueId");
    props["uniqueId"] = uniqueId.empty() ? newUuid() : uniqueId;
    if (str(props, "diskState").empty()) {
      props["diskState"] = "Unattached";
    }
  } else if (type.name == kRoleAssignments) {
    props["scope"] = path.parentId;
    if (str(props, "principalType").empty()) {
      props["principalType"] = "ServicePrincipal";
    }
  } else if (type.parent == "Microsoft.Network/privateDnsZones" &&
             type.leaf() != "virtualNetworkLinks") {
    const std::string zone = path.parentId.substr(path.parentId.rfind('/') + 1);
    props["fqdn"] = path.name == "@" ? zone + "." : path.name + "." + zone + ".";
  }
  if (type.tracked && existing == nullptr && type.nameSpace() == "Microsoft.Compute") {
    props["timeCreated"] = armTime(engine_.time().now());
  } else if (type.tracked && existing != nullptr && existing->contains("properties") &&
             (*existing)["properties"].contains("timeCreated")) {
    props["timeCreated"] = (*existing)["properties"]["timeCreated"];
  }
  return {};
}

}  // namespace nodewright::emulators::arm
