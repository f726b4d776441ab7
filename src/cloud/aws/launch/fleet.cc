#include "cloud/aws/launch/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "api/labels.h"
#include "core/hash.h"

namespace nodewright::cloud::aws {
namespace {

constexpr size_t kMaxClientToken = 64;

// The cheapest usable offering of `type` for `capacityType`; +inf when none is.
double cheapest(const InstanceType& type, const std::string& capacityType,
                const api::karpenter::NodeClaim& claim, const UnavailableOfferings& unavailable) {
  double best = std::numeric_limits<double>::infinity();
  for (const Offering& o : type.offerings) {
    if (o.capacityType == capacityType &&
        offeringUsable(type, o.zone, capacityType, claim, unavailable)) {
      best = std::min(best, o.pricePerHour);
    }
  }
  return best;
}

}  // namespace

bool claimAllows(const api::karpenter::NodeClaim& claim, std::string_view key,
                 std::string_view value) {
  bool mentioned = false;
  const api::Labels labels = {{std::string(key), std::string(value)}};
  for (const auto& r : claim.spec.requirements) {
    if (r.key != key) {
      continue;
    }
    mentioned = true;
    if (!api::matches(r.key, r.operator_, r.values, labels)) {
      return false;
    }
  }
  if (!mentioned && key == kLabelCapacityType) {
    return value == kCapacityTypeOnDemand;
  }
  return true;
}

bool offeringUsable(const InstanceType& type, const std::string& zone,
                    const std::string& capacityType, const api::karpenter::NodeClaim& claim,
                    const UnavailableOfferings& unavailable) {
  if (!claimAllows(claim, kLabelZone, zone) ||
      !claimAllows(claim, kLabelCapacityType, capacityType)) {
    return false;
  }
  const bool offered = std::any_of(type.offerings.begin(), type.offerings.end(), [&](auto& o) {
    return o.zone == zone && o.capacityType == capacityType && o.available;
  });
  return offered && !unavailable.isUnavailable(type.name, zone, capacityType);
}

std::string chooseCapacityType(const std::vector<const InstanceType*>& types,
                               const api::karpenter::NodeClaim& claim,
                               const std::map<std::string, std::string>& subnetByZone,
                               const UnavailableOfferings& unavailable) {
  if (claimAllows(claim, kLabelCapacityType, kCapacityTypeSpot)) {
    for (const InstanceType* type : types) {
      for (const auto& [zone, subnet] : subnetByZone) {
        if (offeringUsable(*type, zone, kCapacityTypeSpot, claim, unavailable)) {
          return kCapacityTypeSpot;
        }
      }
    }
  }
  return kCapacityTypeOnDemand;
}

std::vector<const InstanceType*> withoutDearSpot(const std::vector<const InstanceType*>& types,
                                                 const api::karpenter::NodeClaim& claim,
                                                 const UnavailableOfferings& unavailable) {
  if (!claimAllows(claim, kLabelCapacityType, kCapacityTypeOnDemand)) {
    return types;
  }
  double onDemand = std::numeric_limits<double>::infinity();
  for (const InstanceType* type : types) {
    onDemand = std::min(onDemand, cheapest(*type, kCapacityTypeOnDemand, claim, unavailable));
  }
  std::vector<const InstanceType*> out;
  for (const InstanceType* type : types) {
    if (cheapest(*type, kCapacityTypeSpot, claim, unavailable) <= onDemand) {
      out.push_back(type);
    }
  }
  return out;
}

std::vector<sdk::FleetLaunchTemplateConfig> fleetConfigs(
    const std::vector<TemplateGroup>& groups, const std::string& capacityType,
    const api::karpenter::NodeClaim& claim, const std::map<std::string, std::string>& subnetByZone,
    const UnavailableOfferings& unavailable) {
  std::vector<sdk::FleetLaunchTemplateConfig> out;
  for (const TemplateGroup& group : groups) {
    sdk::FleetLaunchTemplateConfig config;
    config.launchTemplateName = group.launchTemplateName;
    for (const InstanceType* type : group.types) {
      for (const auto& [zone, subnet] : subnetByZone) {
        if ((!group.zone.empty() && zone != group.zone) ||
            !offeringUsable(*type, zone, capacityType, claim, unavailable)) {
          continue;
        }
        sdk::FleetOverride o;
        o.instanceType = type->name;
        o.subnetId = group.subnetId.empty() ? subnet : group.subnetId;
        o.availabilityZone = zone;
        config.overrides.push_back(std::move(o));
      }
    }
    if (!config.overrides.empty()) {
      out.push_back(std::move(config));
    }
  }
  return out;
}

std::string fleetClientToken(const api::karpenter::NodeClaim& claim, int attempt) {
  std::string base = claim.metadata.uid.empty() ? claim.metadata.name : claim.metadata.uid;
  const std::string suffix = attempt > 0 ? fmt::format("-{}", attempt) : "";
  if (base.size() + suffix.size() > kMaxClientToken) {
    // A long name becomes its hash: still one token per claim, and short enough.
    core::Hasher h;
    h.addString(base);
    base = fmt::format("nodeclaim-{:016x}", h.value());
  }
  return base + suffix;
}

bool isCapacityError(std::string_view code) {
  // Karpenter's unfulfillableCapacityErrorCodes (pkg/errors/errors.go).
  static constexpr std::string_view kCodes[] = {"InsufficientInstanceCapacity",
                                                "MaxSpotInstanceCountExceeded",
                                                "VcpuLimitExceeded",
                                                "UnfulfillableCapacity",
                                                "Unsupported",
                                                "InsufficientFreeAddressesInSubnet",
                                                "ReservationCapacityExceeded"};
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

}  // namespace nodewright::cloud::aws
