#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"

// The cloud side of interruption handling (Karpenter's interruption controller): a queue of
// notices that the cloud is about to take machines away or has taken them, already parsed into
// a cloud-neutral kind. The controller (controllers/interruption) decides what each kind means
// for a NodeClaim; the cloud (cloud/aws: SQS with EventBridge events) only delivers and removes
// notices.
namespace nodewright::cloud {

// What a notice says about the machines it names. The label values are Karpenter's message
// kinds (message_type of karpenter_interruption_received_messages_total).
enum class InterruptionKind {
  SpotInterrupted,                 // the spot capacity is reclaimed in ~2 minutes
  RebalanceRecommendation,         // the spot machine is at elevated risk of interruption
  ScheduledChange,                 // the provider scheduled maintenance that affects the machine
  InstanceStopped,                 // stopping or stopped
  InstanceTerminated,              // shutting down or terminated
  CapacityReservationInterrupted,  // the reservation the machine runs in is reclaimed
  NoOp,                            // nothing to act on: unknown, ignored, or malformed
};

// "spot_interrupted", "rebalance_recommendation", ..., "no_op".
std::string_view interruptionKindLabel(InterruptionKind kind);

struct InterruptionNotice {
  InterruptionKind kind = InterruptionKind::NoOp;
  // The machines it is about, as the last segment of their provider IDs ("i-0123..." of
  // "aws:///us-east-1a/i-0123...").
  std::vector<std::string> machineIds;
  // When the cloud raised it (the event's time), for the queue-latency metric.
  std::optional<core::TimePoint> raisedAt;
  // Why it could not be read; empty for a notice that parsed (kind NoOp when unknown).
  std::string malformed;
  // The queue's handle for removing it (opaque).
  std::string receipt;
};

// Delivers notices at least once: one not removed comes back later (after the queue's
// visibility timeout), so a crash between receiving and acting loses none. Thread-safe.
class InterruptionQueue {
 public:
  virtual ~InterruptionQueue() = default;
  // The queue's name, for logs.
  virtual std::string name() const = 0;
  // The next notices; blocks up to the queue's long-poll wait and returns none when nothing
  // arrived. An unreadable notice is returned with `malformed` set, never as an error: the
  // error is for a queue that cannot be read at all.
  virtual core::Result<std::vector<InterruptionNotice>> receive() = 0;
  // Removes a received notice for good. Removing one already removed succeeds.
  virtual core::Status remove(const InterruptionNotice& notice) = 0;
};
using InterruptionQueuePtr = std::unique_ptr<InterruptionQueue>;

// Where an offering the cloud took back is recorded so launches avoid it for a while (AWS: the
// unavailable-offerings cache that InsufficientInstanceCapacity also fills). Thread-safe.
class OfferingAvailability {
 public:
  virtual ~OfferingAvailability() = default;
  virtual void markUnavailable(std::string_view instanceType, std::string_view zone,
                               std::string_view capacityType, std::string_view reason) = 0;
};

}  // namespace nodewright::cloud
