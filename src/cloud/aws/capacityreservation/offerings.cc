#include "cloud/aws/capacityreservation/offerings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "cloud/aws/launch/fleet.h"

namespace nodewright::cloud::aws {
namespace {

bool usable(const UsableReservation& r) {
  return r.available > 0 && r.reservation.state != "expiring";
}

// Karpenter's order of reservation kinds; lower first.
int rank(const api::karpenter::CapacityReservationStatus& r) {
  if (r.reservationType == "capacity-block") {
    return 1;
  }
  return r.interruptible ? 2 : 0;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

void addReservedOfferings(std::vector<InstanceType>& types,
                          const std::vector<UsableReservation>& reservations,
                          const std::vector<std::string>& zones) {
  if (reservations.empty()) {
    return;
  }
  for (InstanceType& type : types) {
    // zone -> available, for the type's reservations.
    std::map<std::string, bool> byZone;
    for (const UsableReservation& r : reservations) {
      if (r.reservation.instanceType != type.name) {
        continue;
      }
      bool& available = byZone[r.reservation.availabilityZone];
      available = available || (usable(r) && contains(zones, r.reservation.availabilityZone));
    }
    if (byZone.empty()) {
      continue;
    }
    double onDemand = std::numeric_limits<double>::infinity();
    for (const Offering& o : type.offerings) {
      if (o.capacityType == kCapacityTypeOnDemand) {
        onDemand = std::min(onDemand, o.pricePerHour);
      }
    }
    const double price = std::isinf(onDemand) ? 0.0 : onDemand / kReservedPriceDivisor;
    for (const auto& [zone, available] : byZone) {
      type.offerings.push_back(Offering{.zone = zone,
                                        .capacityType = kCapacityTypeReserved,
                                        .pricePerHour = price,
                                        .available = available});
    }
  }
}

std::vector<UsableReservation> chooseReservations(
    const std::vector<const InstanceType*>& types, const api::karpenter::NodeClaim& claim,
    const std::vector<std::string>& zones, const std::vector<UsableReservation>& reservations) {
  if (!claimAllows(claim, kLabelCapacityType, kCapacityTypeReserved)) {
    return {};
  }
  std::vector<const UsableReservation*> fitting;
  for (const UsableReservation& r : reservations) {
    const auto& res = r.reservation;
    const bool typed = std::any_of(types.begin(), types.end(), [&](const InstanceType* t) {
      return t->name == res.instanceType;
    });
    if (usable(r) && typed && contains(zones, res.availabilityZone) &&
        claimAllows(claim, kLabelZone, res.availabilityZone) &&
        claimAllows(claim, kLabelCapacityReservationID, res.id) &&
        claimAllows(claim, kLabelCapacityReservationType, res.reservationType) &&
        claimAllows(claim, kLabelCapacityReservationInterruptible,
                    res.interruptible ? "true" : "false")) {
      fitting.push_back(&r);
    }
  }
  if (fitting.empty()) {
    return {};
  }
  const int best = rank((*std::min_element(fitting.begin(), fitting.end(), [](auto* a, auto* b) {
                          return rank(a->reservation) < rank(b->reservation);
                        }))->reservation);
  std::map<std::pair<std::string, std::string>, const UsableReservation*> chosen;
  for (const UsableReservation* r : fitting) {
    if (rank(r->reservation) != best) {
      continue;
    }
    auto key = std::pair(r->reservation.instanceType, r->reservation.availabilityZone);
    auto [it, added] = chosen.emplace(key, r);
    if (!added && r->available > it->second->available) {
      it->second = r;
    }
  }
  std::vector<UsableReservation> out;
  // In the order of `types` (cheapest first), so the fleet's overrides keep that order.
  for (const InstanceType* type : types) {
    for (const auto& [key, r] : chosen) {
      if (key.first == type->name) {
        out.push_back(*r);
      }
    }
  }
  return out;
}

std::string fleetCapacityTypeOf(const api::karpenter::CapacityReservationStatus& r) {
  if (r.reservationType == "capacity-block") {
    return "capacity-block";
  }
  return r.interruptible ? "reserved-capacity" : kCapacityTypeOnDemand;
}

std::string marketTypeOf(const api::karpenter::CapacityReservationStatus& r) {
  if (r.reservationType == "capacity-block") {
    return "capacity-block";
  }
  return r.interruptible ? "interruptible-capacity-reservation" : "";
}

}  // namespace nodewright::cloud::aws
