#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

// IP addresses and CIDR blocks as Go's net.ParseIP / net.ParseCIDR read them, for the address
// checks of the Cluster API and CAPZ kinds.
namespace nodewright::api::capi {

// An IPv4 or IPv6 address; IPv4 is kept in its own 4-byte form.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  size_t size() const { return v6 ? 16 : 4; }
};

// A network: the address with the host bits cleared, and the prefix length.
struct IpNetwork {
  IpAddress base;
  int prefix = 0;

  bool contains(const IpAddress& ip) const;
};

// Dotted-quad IPv4 or RFC 4291 IPv6 text (with "::" compression and an optional embedded
// IPv4 tail); nullopt for anything else.
std::optional<IpAddress> parseIp(std::string_view text);

// "10.0.0.0/16" or "fd00::/64"; nullopt when the address or the prefix length is invalid.
std::optional<IpNetwork> parseCidr(std::string_view text);

}  // namespace nodewright::api::capi
