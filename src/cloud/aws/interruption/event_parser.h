#pragma once

#include <string_view>

#include "cloud/interruption.h"

// Reads one SQS message body as the EventBridge event the interruption queue's rules forward
// (Karpenter's interruption messages, by version, source and detail-type):
//   aws.ec2    "EC2 Spot Instance Interruption Warning"               -> SpotInterrupted
//   aws.ec2    "EC2 Instance Rebalance Recommendation"                -> RebalanceRecommendation
//   aws.ec2    "EC2 Instance State-change Notification"  stopping, stopped -> InstanceStopped;
//                                          shutting-down, terminated -> InstanceTerminated;
//                                          any other state -> NoOp
//   aws.health "AWS Health Event"   service EC2, category scheduledChange -> ScheduledChange
//                                   (every affectedEntities[].entityValue); otherwise NoOp
//   aws.ec2    "EC2 Capacity Reservation Instance Interruption Warning"
//                                                               -> CapacityReservationInterrupted
// all at version "0". Another event (or an empty body) is NoOp. A body that is not a JSON
// object, or an event of a known type whose fields are missing or mistyped, is NoOp with
// `malformed` saying why.
namespace nodewright::cloud::aws {

cloud::InterruptionNotice parseInterruptionEvent(std::string_view body);

}  // namespace nodewright::cloud::aws
