#include "cloud/aws/launch/network_interfaces.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "cloud/aws/launch/subnets.h"
#include "cloud/aws/networkinterface/slot.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::EC2NodeClassSpec;
using api::karpenter::NetworkInterface;

std::string field(size_t i, std::string_view name) {
  return fmt::format("spec.networkInterfaces[{}].{}", i, name);
}

core::Error invalid(std::string path, std::string_view what) {
  return core::Error::invalid(fmt::format("{}: {}", path, what));
}

// Sorted and distinct, so the same groups always make the same template.
std::vector<std::string> groupIds(const std::vector<sdk::SecurityGroup>& groups) {
  std::set<std::string> ids;
  for (const sdk::SecurityGroup& g : groups) {
    ids.insert(g.groupId);
  }
  return {ids.begin(), ids.end()};
}

const ResolvedInterface* resolvedAt(const ResolvedNodeClass& resolved, size_t i) {
  return i < resolved.interfaces.size() ? &resolved.interfaces[i] : nullptr;
}

bool ownGroups(const NetworkInterface& ni, const ResolvedInterface* r) {
  return r != nullptr ? r->ownSecurityGroups : !ni.securityGroupSelectorTerms.empty();
}

bool ownSubnets(const NetworkInterface& ni, const ResolvedInterface* r) {
  return r != nullptr ? r->ownSubnets : !ni.subnetSelectorTerms.empty();
}

core::Status checkCounts(const NetworkInterface& ni, size_t i) {
  const std::pair<const char*, std::optional<int32_t>> counts[] = {
      {"deviceIndex", ni.deviceIndex},
      {"networkCardIndex", ni.networkCardIndex},
      {"ipv4PrefixCount", ni.ipv4PrefixCount},
      {"ipv6PrefixCount", ni.ipv6PrefixCount}};
  for (const auto& [name, value] : counts) {
    if (value && *value < 0) {
      return core::fail(invalid(field(i, name), fmt::format("{} is negative", *value)));
    }
  }
  if (ni.interfaceType != "" && ni.interfaceType != "interface" && ni.interfaceType != "efa" &&
      ni.interfaceType != "efa-only") {
    return core::fail(
        invalid(field(i, "interfaceType"),
                fmt::format("\"{}\" is not one of interface, efa, efa-only", ni.interfaceType)));
  }
  return core::ok();
}

core::Result<sdk::LaunchTemplateNetworkInterface> listedInterface(
    const NetworkInterface& ni, size_t i, const ResolvedNodeClass& resolved,
    const std::vector<std::string>& classGroups, const InterfaceOptions& options) {
  if (auto ok = checkCounts(ni, i); !ok) {
    return core::fail(ok.error());
  }
  sdk::LaunchTemplateNetworkInterface out;
  out.associateCarrierIpAddress = ni.associateCarrierIPAddress;
  out.associatePublicIpAddress = ni.associatePublicIPAddress;
  out.deleteOnTermination = ni.deleteOnTermination;
  out.description = ni.description;
  // Unset is 0, as everywhere (networkinterface/slot.h).
  out.deviceIndex = slotOf(ni).device;
  if (ni.networkCardIndex) {
    out.networkCardIndex = *ni.networkCardIndex;
  }
  out.interfaceType = ni.interfaceType == "interface" ? "" : ni.interfaceType;
  if (ni.ipv4PrefixCount) {
    out.ipv4PrefixCount = *ni.ipv4PrefixCount;
  }
  if (ni.ipv6PrefixCount) {
    out.ipv6PrefixCount = *ni.ipv6PrefixCount;
  }
  const ResolvedInterface* r = resolvedAt(resolved, i);
  if (ownGroups(ni, r)) {
    out.groups = groupIds(r != nullptr ? r->securityGroups : std::vector<sdk::SecurityGroup>{});
    if (out.groups.empty()) {
      return core::fail(invalid(field(i, "securityGroupSelectorTerms"),
                                "no security group matches the interface's selectors"));
    }
  } else {
    out.groups = classGroups;
  }
  if (ownSubnets(ni, r) && !options.zone.empty()) {
    // Both branches lvalues: a temporary vector here would die before `subnet` is read.
    static const std::vector<sdk::Subnet> kNone;
    const sdk::Subnet* subnet = roomiestSubnet(r != nullptr ? r->subnets : kNone, options.zone);
    if (subnet == nullptr) {
      return core::fail(
          invalid(field(i, "subnetSelectorTerms"),
                  fmt::format("no subnet of the interface in zone {}", options.zone)));
    }
    out.subnetId = subnet->subnetId;
  }
  return out;
}

// spec.connectionTracking as EC2 takes it; nullopt when the node class sets no timeout.
std::optional<sdk::ConnectionTracking> connectionTracking(const EC2NodeClassSpec& spec) {
  if (!spec.connectionTracking) {
    return std::nullopt;
  }
  const api::karpenter::ConnectionTracking& c = *spec.connectionTracking;
  if (!c.tcpEstablishedTimeout && !c.udpStreamTimeout && !c.udpTimeout) {
    return std::nullopt;
  }
  return sdk::ConnectionTracking{c.tcpEstablishedTimeout, c.udpStreamTimeout, c.udpTimeout};
}

// Karpenter's EFA interfaces: one per card, the first the primary (device 0), the rest device
// 1 so no card outranks the first for routing.
std::vector<sdk::LaunchTemplateNetworkInterface> efaInterfaces(
    int count, const std::vector<std::string>& groups) {
  std::vector<sdk::LaunchTemplateNetworkInterface> out;
  for (int i = 0; i < count; ++i) {
    sdk::LaunchTemplateNetworkInterface ni;
    ni.deviceIndex = i == 0 ? 0 : 1;
    ni.networkCardIndex = i;
    ni.interfaceType = "efa";
    ni.groups = groups;
    out.push_back(std::move(ni));
  }
  return out;
}

// EC2 takes a public IP only on a launch with one interface.
core::Status checkPublicIp(const EC2NodeClassSpec& spec,
                           std::vector<sdk::LaunchTemplateNetworkInterface>& interfaces) {
  if (interfaces.size() > 1) {
    for (size_t i = 0; i < spec.networkInterfaces.size(); ++i) {
      if (spec.networkInterfaces[i].associatePublicIPAddress.value_or(false)) {
        return core::fail(invalid(
            field(i, "associatePublicIPAddress"),
            fmt::format("a public IP needs a launch with one network interface; this one has {}",
                        interfaces.size())));
      }
    }
    if (spec.associatePublicIPAddress.value_or(false)) {
      return core::fail(invalid(
          "spec.associatePublicIPAddress",
          fmt::format("a public IP needs a launch with one network interface; this one has {}",
                      interfaces.size())));
    }
  }
  // The node class's setting reaches the primary interface unless the interface says itself.
  if (spec.associatePublicIPAddress) {
    for (sdk::LaunchTemplateNetworkInterface& ni : interfaces) {
      if (ni.deviceIndex == 0 && ni.networkCardIndex.value_or(0) == 0 &&
          !ni.associatePublicIpAddress) {
        ni.associatePublicIpAddress = spec.associatePublicIPAddress;
      }
    }
  }
  return core::ok();
}

}  // namespace

core::Result<std::vector<sdk::LaunchTemplateNetworkInterface>> buildNetworkInterfaces(
    const EC2NodeClassSpec& spec, const ResolvedNodeClass& resolved,
    const InterfaceOptions& options) {
  const std::vector<std::string> classGroups = groupIds(resolved.securityGroups);
  std::vector<sdk::LaunchTemplateNetworkInterface> out;
  std::vector<size_t> origin;  // the spec entry of each interface, for error paths
  if (!spec.networkInterfaces.empty()) {
    for (size_t i = 0; i < spec.networkInterfaces.size(); ++i) {
      auto ni = listedInterface(spec.networkInterfaces[i], i, resolved, classGroups, options);
      if (!ni) {
        return core::fail(ni.error());
      }
      out.push_back(std::move(*ni));
      origin.push_back(i);
    }
  } else if (options.efaCount > 0) {
    out = efaInterfaces(options.efaCount, classGroups);
  } else if (spec.associatePublicIPAddress || connectionTracking(spec)) {
    // Both settings live on an interface, so the launch names its primary one.
    sdk::LaunchTemplateNetworkInterface primary;
    primary.groups = classGroups;
    out.push_back(std::move(primary));
  } else {
    return out;
  }
  if (classGroups.empty()) {
    for (const sdk::LaunchTemplateNetworkInterface& ni : out) {
      if (ni.groups.empty()) {
        return core::fail(
            invalid("spec.securityGroupSelectorTerms", "no security group matches the selectors"));
      }
    }
  }
  std::map<std::pair<int, int>, size_t> slots;
  for (size_t k = 0; k < origin.size(); ++k) {
    const auto slot = std::pair{out[k].networkCardIndex.value_or(0), out[k].deviceIndex};
    if (auto [it, inserted] = slots.emplace(slot, origin[k]); !inserted) {
      return core::fail(
          invalid(field(origin[k], "deviceIndex"),
                  fmt::format("device {} on network card {} is taken by spec.networkInterfaces[{}]",
                              slot.second, slot.first, it->second)));
    }
  }
  if (auto ok = checkPublicIp(spec, out); !ok) {
    return core::fail(ok.error());
  }
  // Every interface Karpenter launches carries the timeouts, except efa-only ones, which EC2
  // gives no IP traffic to track.
  if (const auto tracking = connectionTracking(spec)) {
    for (sdk::LaunchTemplateNetworkInterface& ni : out) {
      if (ni.interfaceType != "efa-only") {
        ni.connectionTracking = tracking;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tuple(a.deviceIndex, a.networkCardIndex.value_or(0)) <
           std::tuple(b.deviceIndex, b.networkCardIndex.value_or(0));
  });
  return out;
}

bool interfacesPinSubnets(const EC2NodeClassSpec& spec, const ResolvedNodeClass& resolved) {
  for (size_t i = 0; i < spec.networkInterfaces.size(); ++i) {
    if (ownSubnets(spec.networkInterfaces[i], resolvedAt(resolved, i))) {
      return true;
    }
  }
  return false;
}

}  // namespace nodewright::cloud::aws
