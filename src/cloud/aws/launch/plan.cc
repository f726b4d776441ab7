#include "cloud/aws/launch/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <tuple>
#include <utility>

#include "api/karpenter/well_known.h"
#include "api/labels.h"
#include "cloud/aws/instancetype/types.h"
#include "cloud/aws/launch/network_interfaces.h"
#include "cloud/aws/launch/subnets.h"
#include "cloud/aws/launch/template_data.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud::aws {
namespace {

// The first image (newest first, as resolved) whose requirements the type's labels meet.
const ResolvedImage* imageFor(const InstanceType& type, const std::vector<ResolvedImage>& images) {
  for (const ResolvedImage& image : images) {
    const bool fits = std::all_of(
        image.requirements.begin(), image.requirements.end(),
        [&](const auto& r) { return api::matches(r.key, r.operator_, r.values, type.labels); });
    if (fits) {
      return &image;
    }
  }
  return nullptr;
}

int64_t capacityOf(const InstanceType& type, const std::string& resource) {
  auto it = type.capacity.find(resource);
  return it == type.capacity.end() ? 0 : it->second.value();
}

}  // namespace

std::string launchTenancy(const api::karpenter::NodeClaim& claim) {
  auto allows = [&](std::string_view tenancy) {
    const std::map<std::string, std::string> node = {
        {labels::kInstanceTenancy, std::string(tenancy)}};
    return std::all_of(claim.spec.requirements.begin(), claim.spec.requirements.end(),
                       [&](const auto& r) {
                         return r.key != labels::kInstanceTenancy ||
                                api::matches(r.key, r.operator_, r.values, node);
                       });
  };
  for (std::string_view tenancy : labels::kTenancies) {
    if (allows(tenancy)) {
      return std::string(tenancy);
    }
  }
  return std::string(labels::kTenancies.front());
}

std::optional<int> launchPartition(const api::karpenter::NodeClaim& claim) {
  std::vector<std::string> values;
  for (const auto& r : claim.spec.requirements) {
    if (r.key == labels::kPlacementGroupPartition && r.operator_ == "In") {
      values.insert(values.end(), r.values.begin(), r.values.end());
    }
  }
  std::sort(values.begin(), values.end());
  for (const std::string& v : values) {
    int partition = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), partition);
    if (ec == std::errc() && end == v.data() + v.size()) {
      return partition;
    }
  }
  return std::nullopt;
}

core::Result<LaunchPlan> planLaunch(const LaunchRequest& request, LaunchTemplateProvider& templates,
                                    const UnavailableOfferings& unavailable) {
  const api::karpenter::NodeClaim& claim = request.claim;
  LaunchPlan plan;
  plan.tenancy = launchTenancy(claim);
  if (const auto& group = request.resolved.placementGroup) {
    plan.placementGroupId = group->groupId;
    if (group->strategy == "partition") {
      plan.placementPartition = launchPartition(claim);
    }
  }
  for (const sdk::Subnet& s : request.resolved.subnets) {
    plan.zoneBySubnet[s.subnetId] = s.availabilityZone;
  }
  plan.subnetByZone = subnetByZone(request.resolved.subnets, claim);
  if (plan.subnetByZone.empty()) {
    return core::fail(
        core::Error::invalid("spec.subnetSelectorTerms: no subnet in a zone the claim allows"));
  }
  std::vector<const InstanceType*> types;
  for (const InstanceType* t : request.instanceTypes) {
    if (types.size() == kMaxInstanceTypes) {
      break;
    }
    types.push_back(t);
  }
  plan.capacityType = chooseCapacityType(types, claim, plan.subnetByZone, unavailable);
  std::vector<std::string> subnetZones;
  for (const auto& [zone, subnet] : plan.subnetByZone) {
    subnetZones.push_back(zone);
  }
  // Reserved first while a reservation has room, as Karpenter: it is already paid for.
  plan.reservations = chooseReservations(types, claim, subnetZones, request.reservations);
  if (!plan.reservations.empty()) {
    plan.capacityType = kCapacityTypeReserved;
  } else if (plan.capacityType == kCapacityTypeSpot) {
    auto cheaper = withoutDearSpot(types, claim, unavailable);
    if (cheaper.empty()) {
      plan.capacityType = kCapacityTypeOnDemand;
    } else {
      types = std::move(cheaper);
    }
  }
  plan.fleetCapacityType = plan.reservations.empty()
                               ? plan.capacityType
                               : fleetCapacityTypeOf(plan.reservations.front().reservation);

  // One template per (image, max pods, EFA count, zone when interfaces pin subnets), as
  // Karpenter's resolver groups types; identical templates from different keys share a name.
  const api::karpenter::EC2NodeClass& nodeClass = request.nodeClass;
  const auto& kubelet = effectiveKubelet(nodeClass.spec, claim.spec.kubelet);
  const bool efaRequested = claim.spec.resources.requests.contains(kResourceEfa);
  std::vector<std::string> zones = {""};
  if (interfacesPinSubnets(nodeClass.spec, request.resolved)) {
    zones.clear();
    for (const auto& [zone, subnet] : plan.subnetByZone) {
      zones.push_back(zone);
    }
  }
  std::map<std::tuple<std::string, int64_t, int64_t, std::string, std::string>, size_t> groupOfKey;
  std::map<std::string, size_t> groupOfName;
  std::vector<api::karpenter::Taint> taints = claim.spec.taints;
  taints.insert(taints.end(), claim.spec.startupTaints.begin(), claim.spec.startupTaints.end());
  // As Karpenter v1.14: every node registers with karpenter.sh/unregistered:NoExecute (lifted
  // once the NodeClaim has the node), so nothing runs there before Karpenter syncs it.
  if (std::none_of(taints.begin(), taints.end(), [](const api::karpenter::Taint& t) {
        return t.key == api::karpenter::kUnregisteredTaintKey && t.effect == "NoExecute";
      })) {
    taints.push_back({api::karpenter::kUnregisteredTaintKey, "", "NoExecute", std::nullopt});
  }
  // Adds `type` to the group of its template for `zone` (a zonal template's; "" otherwise),
  // limited to `overrideZone` when set, launching into `reservation` when set.
  auto addType = [&](const InstanceType* type, const std::string& zone,
                     const std::string& overrideZone,
                     const UsableReservation* reservation) -> core::Status {
    const ResolvedImage* image = imageFor(*type, request.resolved.images);
    if (image == nullptr) {
      return {};  // no AMI runs on it (architecture, accelerator)
    }
    const int64_t maxPods = kubelet && kubelet->maxPods ? 0 : capacityOf(*type, "pods");
    const int64_t efa = efaRequested ? capacityOf(*type, kResourceEfa) : 0;
    {
      const std::string reservationId = reservation ? reservation->reservation.id : "";
      const auto key = std::tuple(image->id, maxPods, efa, zone, reservationId);
      auto known = groupOfKey.find(key);
      if (known == groupOfKey.end()) {
        LaunchSettings settings;
        if (reservation != nullptr) {
          settings.capacityReservationId = reservationId;
          settings.marketType = marketTypeOf(reservation->reservation);
        }
        settings.imageId = image->id;
        settings.tenancy = plan.tenancy;
        settings.placementGroupId = plan.placementGroupId;
        settings.placementPartition = plan.placementPartition;
        settings.labels = claim.metadata.labels;
        settings.taints = taints;
        settings.kubelet = kubelet;
        if (maxPods > 0) {
          settings.maxPods = static_cast<int32_t>(maxPods);
        }
        settings.interfaces = {static_cast<int>(efa), zone};
        auto spec = buildTemplate(templates.cluster(), nodeClass, request.resolved, settings);
        if (!spec) {
          return core::fail(spec.error());
        }
        auto name = templates.ensure(*spec);
        if (!name) {
          return core::fail(name.error());
        }
        auto [it, added] = groupOfName.emplace(*name, plan.groups.size());
        if (added) {
          TemplateGroup group{*name, image->id, overrideZone.empty() ? zone : overrideZone, "", {}};
          for (const auto& ni : spec->data.networkInterfaces) {
            if (ni.deviceIndex == 0 && ni.networkCardIndex.value_or(0) == 0) {
              group.subnetId = ni.subnetId;
            }
          }
          plan.groups.push_back(std::move(group));
        }
        known = groupOfKey.emplace(key, it->second).first;
      }
      plan.groups[known->second].types.push_back(type);
    }
    return {};
  };
  if (plan.capacityType == kCapacityTypeReserved) {
    for (const UsableReservation& r : plan.reservations) {
      const auto type = std::find_if(types.begin(), types.end(), [&](const InstanceType* t) {
        return t->name == r.reservation.instanceType;
      });
      const std::string& zone = r.reservation.availabilityZone;
      const bool zonal = zones.size() > 1 || !zones.front().empty();
      if (auto ok = addType(*type, zonal ? zone : "", zone, &r); !ok) {
        return core::fail(ok.error());
      }
    }
  } else {
    for (const InstanceType* type : types) {
      for (const std::string& zone : zones) {
        if (auto ok = addType(type, zone, "", nullptr); !ok) {
          return core::fail(ok.error());
        }
      }
    }
  }
  if (plan.groups.empty()) {
    return core::fail(core::Error::invalid(fmt::format(
        "status.amis: none of the {} instance types can run a resolved AMI", types.size())));
  }
  plan.configs =
      fleetConfigs(plan.groups, plan.capacityType, claim, plan.subnetByZone, unavailable);
  if (plan.configs.empty()) {
    return core::fail(core::Error(
        core::Code::InsufficientCapacity,
        fmt::format("no available {} offering of {} instance types in the allowed zones",
                    plan.capacityType, types.size())));
  }
  return plan;
}

}  // namespace nodewright::cloud::aws
