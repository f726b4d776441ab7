// What an AzureMachine's status learns from its resources as ARM returned them: CAPZ's
// virtualmachines service (providerID, vmState) and its getAddresses.
#include <algorithm>
#include <cctype>

#include "controllers/capz/azuremachine/services.h"
#include "core/text.h"

namespace nodewright::controllers::capz::azuremachine {
namespace {

using api::Json;

// ARM ids compare case-insensitively.
const Json* resultFor(const Pass& pass, std::string_view id) {
  const std::string key = core::lowerAscii(id);
  const Json* found = nullptr;
  for (const auto& [resultId, body] : pass.results) {
    if (core::lowerAscii(resultId) == key && body.is_object()) {
      found = &body;  // the last one: later services saw the newest body
    }
  }
  return found;
}

const Json& at(const Json& o, const char* key) {
  static const Json kNull;
  if (!o.is_object()) {
    return kNull;
  }
  auto it = o.find(key);
  return it != o.end() ? *it : kNull;
}

std::string text(const Json& o, const char* key) {
  const Json& v = at(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

void addAddress(std::vector<api::capi::MachineAddress>& out, std::string type,
                std::string address) {
  if (address.empty()) {
    return;
  }
  for (const auto& a : out) {
    if (a.type == type && a.address == address) {
      return;
    }
  }
  out.push_back({std::move(type), std::move(address)});
}

}  // namespace

std::optional<VmObservation> observeVm(const MachineScope& scope, const Pass& pass) {
  const Json* vm = resultFor(pass, vmId(scope));
  if (vm == nullptr) {
    return std::nullopt;
  }
  VmObservation out;
  const std::string id = text(*vm, "id");
  out.providerID = "azure://" + (id.empty() ? vmId(scope) : id);
  const Json& props = at(*vm, "properties");
  out.vmState = text(props, "provisioningState");
  const std::string principal = text(at(*vm, "identity"), "principalId");
  if (!principal.empty()) {
    out.principalId = principal;
  }
  const std::string computerName = text(at(props, "osProfile"), "computerName");
  addAddress(out.addresses, "InternalDNS", computerName.empty() ? scope.vmName() : computerName);
  const Json& nics = at(at(props, "networkProfile"), "networkInterfaces");
  if (!nics.is_array()) {
    return out;
  }
  for (const Json& nicRef : nics) {
    const Json* nic = resultFor(pass, text(nicRef, "id"));
    const Json& configs = nic ? at(at(*nic, "properties"), "ipConfigurations") : Json();
    if (!configs.is_array()) {
      continue;
    }
    for (const Json& config : configs) {
      const Json& cp = at(config, "properties");
      addAddress(out.addresses, "InternalIP", text(cp, "privateIPAddress"));
      const std::string pipId = text(at(cp, "publicIPAddress"), "id");
      if (const Json* pip = pipId.empty() ? nullptr : resultFor(pass, pipId)) {
        addAddress(out.addresses, "ExternalIP", text(at(*pip, "properties"), "ipAddress"));
      }
    }
  }
  return out;
}

}  // namespace nodewright::controllers::capz::azuremachine
