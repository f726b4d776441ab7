#include "cloud/aws/nodeclass/resolver.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/reflect/json.h"
#include "cloud/aws/nodeclass/status.h"
#include "core/log.h"

namespace nodewright::cloud::aws {
namespace {

using api::Json;
using api::karpenter::AMISelectorTerm;
using api::karpenter::SecurityGroupSelectorTerm;
using api::karpenter::SubnetSelectorTerm;

// Cache keys: the terms as JSON (tags are ordered maps, so equal terms give equal keys).
std::string keyOf(const std::vector<SubnetSelectorTerm>& terms) {
  Json out = Json::array();
  for (const auto& t : terms) {
    out.push_back({t.id, t.tags});
  }
  return api::dumpJson(out);
}

std::string keyOf(const std::vector<SecurityGroupSelectorTerm>& terms) {
  Json out = Json::array();
  for (const auto& t : terms) {
    out.push_back({t.id, t.name, t.tags});
  }
  return api::dumpJson(out);
}

std::string keyOf(const std::vector<AMISelectorTerm>& terms) {
  Json out = Json::array();
  for (const auto& t : terms) {
    out.push_back({t.alias, t.id, t.name, t.owner, t.ssmParameter, t.tags});
  }
  return api::dumpJson(out);
}

}  // namespace

NodeClassResolver::NodeClassResolver(const core::Clock& clock, sdk::Ec2Client& ec2,
                                     sdk::SsmClient& ssm, ResolverOptions options)
    : clock_(clock),
      ec2_(ec2),
      ssm_(ssm),
      options_(std::move(options)),
      reservations_(clock, ec2, options_.ttl) {}

core::Result<ResolvedNodeClass> NodeClassResolver::resolve(
    const api::karpenter::EC2NodeClass& nodeClass) {
  const api::karpenter::EC2NodeClassSpec& spec = nodeClass.spec;
  ResolvedNodeClass out;
  out.family = nodeclass::familyOf(spec);

  auto subnets = this->subnets(spec.subnetSelectorTerms);
  if (!subnets) {
    return core::fail(subnets.error().wrap("resolving spec.subnetSelectorTerms"));
  }
  out.subnets = std::move(*subnets);
  auto groups = securityGroups(spec.securityGroupSelectorTerms);
  if (!groups) {
    return core::fail(groups.error().wrap("resolving spec.securityGroupSelectorTerms"));
  }
  out.securityGroups = std::move(*groups);
  auto images = this->images(spec.amiSelectorTerms);
  if (!images) {
    return core::fail(images.error().wrap("resolving spec.amiSelectorTerms"));
  }
  out.images = images->images;
  auto reservations = reservations_.list(spec.capacityReservationSelectorTerms);
  if (!reservations) {
    return core::fail(reservations.error().wrap("resolving spec.capacityReservationSelectorTerms"));
  }
  for (const sdk::CapacityReservation& r : *reservations) {
    auto status = reservationStatus(r, clock_.now());
    if (!status) {
      // As Karpenter: a reservation of a kind it does not know is left out, not fatal.
      core::logError("nodeclass: skipping capacity reservation",
                     {{"node-class", nodeClass.metadata.name}, {"error", status.error()}});
      continue;
    }
    out.capacityReservations.push_back(std::move(*status));
  }
  std::sort(out.capacityReservations.begin(), out.capacityReservations.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  if (const auto& selector = spec.placementGroupSelector) {
    out.placementGroupSelector = selector->name.value_or(selector->id.value_or(""));
    auto group = placementGroup(*selector);
    if (!group) {
      return core::fail(group.error().wrap("resolving spec.placementGroupSelector"));
    }
    out.placementGroup = std::move(*group);
  }

  for (size_t i = 0; i < spec.networkInterfaces.size(); ++i) {
    const api::karpenter::NetworkInterface& ni = spec.networkInterfaces[i];
    ResolvedInterface r;
    r.ownSubnets = !ni.subnetSelectorTerms.empty();
    r.ownSecurityGroups = !ni.securityGroupSelectorTerms.empty();
    if (r.ownSubnets) {
      auto own = this->subnets(ni.subnetSelectorTerms);
      if (!own) {
        return core::fail(own.error().wrap(
            fmt::format("resolving spec.networkInterfaces[{}].subnetSelectorTerms", i)));
      }
      r.subnets = std::move(*own);
    } else {
      r.subnets = out.subnets;
    }
    if (r.ownSecurityGroups) {
      auto own = securityGroups(ni.securityGroupSelectorTerms);
      if (!own) {
        return core::fail(own.error().wrap(
            fmt::format("resolving spec.networkInterfaces[{}].securityGroupSelectorTerms", i)));
      }
      r.securityGroups = std::move(*own);
    } else {
      r.securityGroups = out.securityGroups;
    }
    out.interfaces.push_back(std::move(r));
  }

  nodeclass::writeStatus(out, nodeClass, nodeclass::verdicts(out, images->detail, images->reason),
                         clock_.now());
  return out;
}

void NodeClassResolver::invalidate() {
  std::lock_guard lock(mu_);
  subnetCache_.clear();
  groupCache_.clear();
  imageCache_.clear();
  placementGroupCache_.clear();
}

std::chrono::steady_clock::time_point NodeClassResolver::expiry() const {
  return clock_.steadyNow() + options_.ttl;
}

core::Result<std::vector<sdk::Subnet>> NodeClassResolver::subnets(
    const std::vector<SubnetSelectorTerm>& terms) {
  const std::string key = keyOf(terms);
  {
    std::lock_guard lock(mu_);
    if (auto hit = subnetCache_.get(key, clock_.steadyNow())) {
      return std::move(*hit);
    }
  }
  auto found = nodeclass::findSubnets(ec2_, terms);
  if (found) {
    std::lock_guard lock(mu_);
    subnetCache_.put(key, *found, expiry());
  }
  return found;
}

core::Result<std::vector<sdk::SecurityGroup>> NodeClassResolver::securityGroups(
    const std::vector<SecurityGroupSelectorTerm>& terms) {
  const std::string key = keyOf(terms);
  {
    std::lock_guard lock(mu_);
    if (auto hit = groupCache_.get(key, clock_.steadyNow())) {
      return std::move(*hit);
    }
  }
  auto found = nodeclass::findSecurityGroups(ec2_, terms);
  if (found) {
    std::lock_guard lock(mu_);
    groupCache_.put(key, *found, expiry());
  }
  return found;
}

core::Result<std::optional<sdk::PlacementGroup>> NodeClassResolver::placementGroup(
    const api::karpenter::PlacementGroupSelector& selector) {
  const std::string key =
      api::dumpJson(Json::array({selector.id.value_or(""), selector.name.value_or("")}));
  {
    std::lock_guard lock(mu_);
    if (auto hit = placementGroupCache_.get(key, clock_.steadyNow())) {
      return std::move(*hit);
    }
  }
  auto found = nodeclass::findPlacementGroup(ec2_, selector);
  if (found) {
    std::lock_guard lock(mu_);
    placementGroupCache_.put(key, *found, expiry());
  }
  return found;
}

core::Result<nodeclass::ImageSearch> NodeClassResolver::images(
    const std::vector<AMISelectorTerm>& terms) {
  const std::string key = keyOf(terms);
  {
    std::lock_guard lock(mu_);
    if (auto hit = imageCache_.get(key, clock_.steadyNow())) {
      return std::move(*hit);
    }
  }
  auto found = nodeclass::findImages(ec2_, ssm_, terms, options_.kubernetesVersion, clock_.now());
  if (found) {
    std::lock_guard lock(mu_);
    imageCache_.put(key, *found, expiry());
  }
  return found;
}

}  // namespace nodewright::cloud::aws
