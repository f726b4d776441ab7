// Private addresses of network interfaces, as Azure's dynamic allocation hands them out: from
// the subnet's range without the five addresses Azure reserves (the network address, the next
// three, and the last), the lowest free one first, kept by a NIC across updates, and free again
// once the NIC that held one is gone.
#include <cstdio>
#include <set>

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

const Json* member(const Json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && !it->is_null() ? &*it : nullptr;
}

std::optional<uint32_t> parseIpv4(const std::string& text) {
  unsigned a, b, c, d;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u%n", &a, &b, &c, &d, &consumed) != 4 ||
      static_cast<size_t>(consumed) != text.size() || a > 255 || b > 255 || c > 255 || d > 255) {
    return std::nullopt;
  }
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// "10.0.1.0/24": the network address and the prefix length.
std::optional<std::pair<uint32_t, int>> parseCidr(const std::string& text) {
  const size_t slash = text.find('/');
  auto address = slash == std::string::npos ? std::nullopt : parseIpv4(text.substr(0, slash));
  int bits = -1;
  int consumed = 0;
  if (!address || std::sscanf(text.c_str() + slash + 1, "%d%n", &bits, &consumed) != 1 ||
      slash + 1 + static_cast<size_t>(consumed) != text.size() || bits < 0 || bits > 32) {
    return std::nullopt;
  }
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t(0) << (32 - bits);
  return std::pair(*address & mask, bits);
}

std::string ipv4(uint32_t v) {
  return fmt::format("{}.{}.{}.{}", v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
}

// The subnet's first address prefix.
std::string prefixOf(const Json& subnetBody) {
  const Json* props = member(subnetBody, "properties");
  if (props == nullptr) {
    return {};
  }
  std::string prefix = str(*props, "addressPrefix");
  const Json* prefixes = member(*props, "addressPrefixes");
  if (prefix.empty() && prefixes != nullptr && prefixes->is_array() && !prefixes->empty() &&
      (*prefixes)[0].is_string()) {
    prefix = (*prefixes)[0].get<std::string>();
  }
  return prefix;
}

// The (subnet key, private address) of each IP configuration of a NIC body, by name.
std::map<std::string, std::pair<std::string, std::string>> addressesOf(const Json& nic) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  const Json* props = member(nic, "properties");
  const Json* configs = props != nullptr ? member(*props, "ipConfigurations") : nullptr;
  if (configs == nullptr || !configs->is_array()) {
    return out;
  }
  for (const Json& config : *configs) {
    const Json* cp = member(config, "properties");
    const Json* subnet = cp != nullptr ? member(*cp, "subnet") : nullptr;
    const std::string address = cp != nullptr ? str(*cp, "privateIPAddress") : std::string();
    if (subnet != nullptr && !address.empty()) {
      out[core::lowerAscii(str(config, "name"))] = {core::lowerAscii(str(*subnet, "id")), address};
    }
  }
  return out;
}

}  // namespace

ArmResult<void> ArmModel::assignPrivateAddresses(const ResourcePath& nic, Json& configs,
                                                 const Json* existing) {
  const auto before = existing != nullptr
                          ? addressesOf(*existing)
                          : std::map<std::string, std::pair<std::string, std::string>>();
  // Per subnet: the addresses other NICs hold, and those given in this request.
  std::map<std::string, std::set<uint32_t>> taken;
  auto takenIn = [&](const std::string& subnetKey) -> std::set<uint32_t>& {
    auto [it, fresh] = taken.try_emplace(subnetKey);
    if (fresh) {
      for (const Resource& user : usersOf(subnetKey)) {
        if (user.id == nic.key() || user.type != nic.type->key()) {
          continue;
        }
        for (const auto& [name, held] : addressesOf(data(user).body)) {
          auto address = held.first == subnetKey ? parseIpv4(held.second) : std::nullopt;
          if (address) {
            it->second.insert(*address);
          }
        }
      }
    }
    return it->second;
  };
  for (Json& config : configs) {
    Json* cp =
        config.is_object() && config.contains("properties") && config["properties"].is_object()
            ? &config["properties"]
            : nullptr;
    const Json* subnetRef = cp != nullptr ? member(*cp, "subnet") : nullptr;
    if (subnetRef == nullptr) {
      continue;
    }
    const std::string subnetId = str(*subnetRef, "id");
    const std::string subnetKey = core::lowerAscii(subnetId);
    if (const std::string given = str(*cp, "privateIPAddress"); !given.empty()) {
      if (auto address = parseIpv4(given)) {
        takenIn(subnetKey).insert(*address);
      }
      continue;
    }
    // An update keeps the address of a configuration that stays in the same subnet.
    auto kept = before.find(core::lowerAscii(str(config, "name")));
    if (kept != before.end() && kept->second.first == subnetKey) {
      (*cp)["privateIPAddress"] = kept->second.second;
      (*cp)["privateIPAddressVersion"] = "IPv4";
      if (auto address = parseIpv4(kept->second.second)) {
        takenIn(subnetKey).insert(*address);
      }
      continue;
    }
    auto subnetPath = parseResourcePath(subnetId);
    auto subnet = subnetPath ? find(*subnetPath->type, subnetPath->key()) : std::nullopt;
    const std::string prefix = subnet ? prefixOf(data(*subnet).body) : std::string();
    auto cidr = parseCidr(prefix);
    if (!cidr) {
      continue;  // no IPv4 prefix to allocate from
    }
    const uint64_t size = uint64_t{1} << (32 - cidr->second);
    const uint32_t network = cidr->first;
    std::set<uint32_t>& used = takenIn(subnetKey);
    std::optional<uint32_t> free;
    for (uint64_t host = 4; size >= 6 && host + 1 < size; ++host) {
      const uint32_t candidate = network + static_cast<uint32_t>(host);
      if (!used.contains(candidate)) {
        free = candidate;
        break;
      }
    }
    if (!free) {
      return armFail(400, "SubnetIsFull",
                     fmt::format("Subnet {} with address prefix {} does not have enough capacity "
                                 "for 1 IP addresses.",
                                 subnetPath->name, prefix));
    }
    used.insert(*free);
    (*cp)["privateIPAddress"] = ipv4(*free);
    (*cp)["privateIPAddressVersion"] = "IPv4";
  }
  return {};
}

}  // namespace nodewright::emulators::arm
