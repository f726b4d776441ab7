#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "aws/error.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/launch_template.h"
#include "emulators/ec2/resources.h"

// EC2 On-Demand Capacity Reservations: CreateCapacityReservation, DescribeCapacityReservations
// and CancelCapacityReservation, and what a launch takes from them. A launch whose
// CapacityReservationSpecification targets a reservation runs in it or fails; one with the
// preference "open" (EC2's default) runs in a matching open reservation with room when there is
// one; "none" never uses one.
namespace nodewright::emulators::ec2 {

// "expired" for an active reservation past its end date at `now`, else the stored state.
std::string reservationState(const Resource& r, core::TimePoint now);

struct ReservedCapacity {
  std::string id;
  int64_t count = 0;
  // The instances' lifecycle: "capacity-block", "interruptible-capacity-reservation", or empty
  // for a default reservation (the launch's own lifecycle stands).
  std::string lifecycle;
};

// Takes capacity for between minCount and maxCount instances of `instanceType` in `zone`, as
// `data`'s CapacityReservationSpecification asks; nullopt when the launch does not run in a
// reservation. Errors, as EC2 names them: InvalidCapacityReservationId.NotFound for a target
// that does not exist, ReservationCapacityExceeded for a target (or, with
// capacity-reservations-only, every open reservation) without room for minCount, and
// InvalidParameterCombination for a target of another instance type or zone.
aws::ApiResult<std::optional<ReservedCapacity>> takeReservedCapacity(
    ActionContext& ctx, const LaunchTemplateData& data, const std::string& instanceType,
    const std::string& zone, int64_t minCount, int64_t maxCount);

// Gives back capacity a launch took (or a terminated instance held).
void returnReservedCapacity(ResourceStore& store, const std::string& id, int64_t count);

}  // namespace nodewright::emulators::ec2
