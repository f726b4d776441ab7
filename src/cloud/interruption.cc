#include "cloud/interruption.h"

namespace nodewright::cloud {

std::string_view interruptionKindLabel(InterruptionKind kind) {
  switch (kind) {
    case InterruptionKind::SpotInterrupted:
      return "spot_interrupted";
    case InterruptionKind::RebalanceRecommendation:
      return "rebalance_recommendation";
    case InterruptionKind::ScheduledChange:
      return "scheduled_change";
    case InterruptionKind::InstanceStopped:
      return "instance_stopped";
    case InterruptionKind::InstanceTerminated:
      return "instance_terminated";
    case InterruptionKind::CapacityReservationInterrupted:
      return "capacity_reservation_interrupted";
    case InterruptionKind::NoOp:
      return "no_op";
  }
  return "no_op";
}

}  // namespace nodewright::cloud
