#include "emulators/ec2/subnet_addresses.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace nodewright::emulators::ec2 {
namespace {

struct Cidr {
  uint32_t base = 0;
  uint32_t hosts = 0;
};

std::optional<Cidr> parseCidr(std::string_view text) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  int length = -1;
  if (std::sscanf(std::string(text).c_str(), "%u.%u.%u.%u/%d", &a, &b, &c, &d, &length) != 5 ||
      a > 255 || b > 255 || c > 255 || d > 255 || length < 16 || length > 28) {
    return std::nullopt;
  }
  Cidr cidr;
  cidr.hosts = uint32_t{1} << (32 - length);
  cidr.base = ((a << 24) | (b << 16) | (c << 8) | d) & ~(cidr.hosts - 1);
  return cidr;
}

bool isTaken(const AddressedSubnet& s, uint32_t offset) {
  return (s.taken[offset / 64] >> (offset % 64)) & 1;
}

void setTaken(AddressedSubnet& s, uint32_t offset, bool taken) {
  const uint64_t bit = uint64_t{1} << (offset % 64);
  s.taken[offset / 64] = taken ? (s.taken[offset / 64] | bit) : (s.taken[offset / 64] & ~bit);
}

// A copy of the subnet's attributes that tracks addresses; AWS reserves the first four
// addresses and the last of every subnet.
std::shared_ptr<AddressedSubnet> addressed(const SubnetAttributes& subnet, const Cidr& cidr) {
  auto out = std::make_shared<AddressedSubnet>();
  if (const auto* a = dynamic_cast<const AddressedSubnet*>(&subnet)) {
    *out = *a;
    return out;
  }
  static_cast<SubnetAttributes&>(*out) = subnet;
  out->taken.assign((cidr.hosts + 63) / 64, 0);
  for (uint32_t reserved : {0u, 1u, 2u, 3u, cidr.hosts - 1}) {
    setTaken(*out, reserved, true);
  }
  out->cursor = 4;
  return out;
}

std::optional<uint32_t> takeSingle(AddressedSubnet& s, uint32_t hosts) {
  for (uint32_t i = 0; i < hosts; ++i) {
    const uint32_t offset = (s.cursor + i) % hosts;
    if (!isTaken(s, offset)) {
      setTaken(s, offset, true);
      s.cursor = (offset + 1) % hosts;
      return offset;
    }
  }
  return std::nullopt;
}

// A /28 prefix: 16 free addresses aligned on 16, as EC2 assigns prefixes.
std::optional<uint32_t> takePrefix(AddressedSubnet& s, uint32_t hosts) {
  const uint32_t blocks = hosts / 16;
  for (uint32_t i = 0; i < blocks; ++i) {
    const uint32_t start = ((s.cursor / 16 + i) % blocks) * 16;
    const uint64_t mask = uint64_t{0xFFFF} << (start % 64);
    if ((s.taken[start / 64] & mask) == 0) {
      s.taken[start / 64] |= mask;
      return start;
    }
  }
  return std::nullopt;
}

// CONFIRMED: osbuild/osbuild-composer#1575, PrairieLearn#3271 (as launch_validation.cc).
aws::ApiError insufficientAddresses(const std::string& subnetId) {
  return {"InsufficientFreeAddressesInSubnet",
          fmt::format("There are not enough free addresses in subnet '{}' to satisfy the "
                      "requested number of instances.",
                      subnetId)};
}

// Takes one instance's addresses; nullopt (with `s` partly changed) when the block is full.
std::optional<std::vector<InterfaceAddresses>> takeInstance(AddressedSubnet& s, uint32_t hosts,
                                                            const std::vector<InterfaceNeed>& needs,
                                                            AddressLease& lease) {
  std::vector<InterfaceAddresses> out;
  for (const InterfaceNeed& need : needs) {
    InterfaceAddresses got;
    for (int64_t i = 0; i < need.singles; ++i) {
      auto offset = takeSingle(s, hosts);
      if (!offset) {
        return std::nullopt;
      }
      got.singles.push_back(*offset);
      lease.offsets.push_back(*offset);
    }
    for (int64_t i = 0; i < need.prefixes; ++i) {
      auto start = takePrefix(s, hosts);
      if (!start) {
        return std::nullopt;
      }
      got.prefixes.push_back(*start);
      for (uint32_t k = 0; k < 16; ++k) {
        lease.offsets.push_back(*start + k);
      }
    }
    out.push_back(std::move(got));
  }
  lease.count = static_cast<int64_t>(lease.offsets.size());
  return out;
}

}  // namespace

aws::ApiResult<SubnetGrant> takeAddresses(ResourceStore& store, const std::string& subnetId,
                                          const std::vector<InterfaceNeed>& perInstance,
                                          int64_t minCount, int64_t maxCount) {
  int64_t each = 0;
  for (const InterfaceNeed& need : perInstance) {
    each += need.singles + 16 * need.prefixes;
  }
  std::optional<aws::ApiError> error;
  SubnetGrant grant;
  auto updated = store.update(kind::kSubnet, subnetId, [&](Resource& r) {
    const auto* subnet = r.as<SubnetAttributes>();
    auto cidr = subnet ? parseCidr(subnet->cidrBlock) : std::nullopt;
    if (!cidr) {
      error = insufficientAddresses(subnetId);  // a subnet without usable IPv4 addresses
      return;
    }
    auto next = addressed(*subnet, *cidr);
    const int64_t fit =
        each == 0 ? maxCount : std::min(maxCount, std::max<int64_t>(0, next->availableIps / each));
    for (int64_t i = 0; i < fit; ++i) {
      AddressLease lease{subnetId, 0, {}};
      auto got = takeInstance(*next, cidr->hosts, perInstance, lease);
      if (!got) {
        // The block is fragmented or smaller than the count says: keep the whole instances.
        for (uint32_t offset : lease.offsets) {
          setTaken(*next, offset, false);
        }
        break;
      }
      grant.instances.push_back(std::move(*got));
      grant.leases.push_back(std::move(lease));
    }
    if (static_cast<int64_t>(grant.instances.size()) < minCount) {
      error = insufficientAddresses(subnetId);
      grant = {};
      return;
    }
    for (const AddressLease& lease : grant.leases) {
      next->availableIps -= lease.count;
    }
    grant.cidrBlock = next->cidrBlock;
    r.attributes = std::move(next);
  });
  if (!updated) {
    // CONFIRMED: as launch_validation.cc's subnetNotFound.
    return aws::apiFail("InvalidSubnetID.NotFound",
                        fmt::format("The subnet ID '{}' does not exist", subnetId));
  }
  if (error) {
    return tl::unexpected(std::move(*error));
  }
  return grant;
}

void releaseAddresses(ResourceStore& store, const AddressLease& lease) {
  (void)store.update(kind::kSubnet, lease.subnetId, [&](Resource& r) {
    const auto* subnet = r.as<SubnetAttributes>();
    auto cidr = subnet ? parseCidr(subnet->cidrBlock) : std::nullopt;
    if (!cidr) {
      return;
    }
    auto next = addressed(*subnet, *cidr);
    for (uint32_t offset : lease.offsets) {
      if (offset < cidr->hosts) {
        setTaken(*next, offset, false);
      }
    }
    next->availableIps += lease.count;
    r.attributes = std::move(next);
  });
}

std::string formatAddress(std::string_view cidrBlock, uint32_t offset) {
  auto cidr = parseCidr(cidrBlock);
  const uint32_t ip = (cidr ? cidr->base : 0) + offset;
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
}

std::string formatPrefix(std::string_view cidrBlock, uint32_t offset) {
  return formatAddress(cidrBlock, offset) + "/28";
}

}  // namespace nodewright::emulators::ec2
