#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/instance_type.h"

// The `reserved` capacity type, as Karpenter offers it: an offering per capacity reservation
// the node class resolved, and the choice of the reservations a launch targets.
namespace nodewright::cloud::aws {

inline constexpr const char* kCapacityTypeReserved = "reserved";

// Node labels of an instance in a reservation (Karpenter's).
inline constexpr const char* kLabelCapacityReservationID =
    "karpenter.k8s.aws/capacity-reservation-id";
inline constexpr const char* kLabelCapacityReservationType =
    "karpenter.k8s.aws/capacity-reservation-type";
inline constexpr const char* kLabelCapacityReservationInterruptible =
    "karpenter.k8s.aws/capacity-reservation-interruptible";

// A reserved offering costs the type's on-demand price divided by this: free for every
// decision that compares it with on-demand or spot, while keeping the relative order of
// reserved types for consolidation (Karpenter's constant).
inline constexpr double kReservedPriceDivisor = 10'000'000.0;

// A reservation of the node class and how many more instances it can take now.
struct UsableReservation {
  api::karpenter::CapacityReservationStatus reservation;
  int64_t available = 0;
};

// Adds a reserved offering to each type per zone of its reservations: priced at the type's
// cheapest on-demand offering / kReservedPriceDivisor (0 when it has none), available when a
// reservation of the type in that zone is active (not expiring) with room, and the zone is one
// of `zones` (the node class's subnets').
void addReservedOfferings(std::vector<InstanceType>& types,
                          const std::vector<UsableReservation>& reservations,
                          const std::vector<std::string>& zones);

// The reservations a launch for `claim` targets, one per (instance type, zone), among those with
// room whose type is in `types` and whose zone is in `zones` and allowed by the claim. Only the
// best kind is kept, as Karpenter launches one kind at a time: default reservations, then
// capacity blocks, then interruptible ones; per (type, zone) the one with the most room.
// Empty when the claim does not allow `reserved` (it must say so: an unmentioned capacity type
// is on-demand) or none fits.
std::vector<UsableReservation> chooseReservations(
    const std::vector<const InstanceType*>& types, const api::karpenter::NodeClaim& claim,
    const std::vector<std::string>& zones, const std::vector<UsableReservation>& reservations);

// The fleet's DefaultTargetCapacityType for a launch into `r`: "capacity-block",
// "reserved-capacity" (interruptible) or "on-demand".
std::string fleetCapacityTypeOf(const api::karpenter::CapacityReservationStatus& r);
// The launch template's InstanceMarketOptions.MarketType for `r`; empty for none.
std::string marketTypeOf(const api::karpenter::CapacityReservationStatus& r);

}  // namespace nodewright::cloud::aws
