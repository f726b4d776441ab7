#include "controllers/interruption/controller.h"

#include <algorithm>
#include <optional>

#include "cloud/instance_type.h"
#include "cloud/well_known_labels.h"
#include "controllers/telemetry/karpenter.h"
#include "core/log.h"

namespace nodewright::controllers::interruption {
namespace {

using cloud::InterruptionKind;

// After a poll: again at once. The long poll is the pacing; the millisecond only keeps a queue
// that answers without waiting from spinning a core.
constexpr std::chrono::milliseconds kPollAgain{1};

// Whether a NodeClaim named by a notice of `kind` goes (Karpenter's CordonAndDrain). The
// rebalance recommendation is advice only, as upstream.
bool deletes(InterruptionKind kind) {
  switch (kind) {
    case InterruptionKind::SpotInterrupted:
    case InterruptionKind::ScheduledChange:
    case InterruptionKind::InstanceStopped:
    case InterruptionKind::InstanceTerminated:
    case InterruptionKind::CapacityReservationInterrupted:
      return true;
    case InterruptionKind::RebalanceRecommendation:
    case InterruptionKind::NoOp:
      return false;
  }
  return false;
}

struct Notice {
  runtime::EventType type;
  const char* reason;
  const char* message;
};

// The event a NodeClaim and its Node get for a notice of `kind` (upstream's reasons and words).
std::optional<Notice> noticeEvent(InterruptionKind kind) {
  using runtime::EventType;
  switch (kind) {
    case InterruptionKind::SpotInterrupted:
      return Notice{EventType::Warning, "SpotInterrupted",
                    "Spot interruption warning was triggered"};
    case InterruptionKind::RebalanceRecommendation:
      return Notice{EventType::Normal, "SpotRebalanceRecommendation",
                    "Spot rebalance recommendation was triggered"};
    case InterruptionKind::ScheduledChange:
      return Notice{EventType::Warning, "InstanceUnhealthy",
                    "An unhealthy warning was triggered for the instance"};
    case InterruptionKind::InstanceStopped:
      return Notice{EventType::Warning, "InstanceStopping", "Instance is stopping"};
    case InterruptionKind::InstanceTerminated:
      return Notice{EventType::Warning, "InstanceTerminating", "Instance is terminating"};
    case InterruptionKind::CapacityReservationInterrupted:
      return Notice{EventType::Warning, "CapacityReservationInstanceInterrupted",
                    "Capacity Reservation interruption warning was triggered"};
    case InterruptionKind::NoOp:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string label(InterruptionKind kind) {
  return std::string(cloud::interruptionKindLabel(kind));
}

}  // namespace

std::string machineIdOf(std::string_view providerID) {
  const size_t slash = providerID.rfind('/');
  return std::string(slash == std::string_view::npos ? providerID : providerID.substr(slash + 1));
}

InterruptionController::InterruptionController(
    kube::Client& client, cloud::InterruptionQueue& queue, cloud::OfferingAvailability* offerings,
    const core::Clock& clock, runtime::EventRecorder* events, runtime::Registry& metrics)
    : nodeClaims_(client),
      nodes_(client),
      queue_(queue),
      offerings_(offerings),
      clock_(clock),
      events_(events),
      received_(metrics.counter("karpenter_interruption_received_messages_total",
                                "Count of messages received from the SQS queue. Broken down by "
                                "message type and whether the message was actionable.",
                                {"message_type"})),
      deleted_(metrics.counter("karpenter_interruption_deleted_messages_total",
                               "Count of messages deleted from the SQS queue.")),
      latency_(metrics.histogram("karpenter_interruption_message_queue_duration_seconds",
                                 "Amount of time an interruption message is on the queue before "
                                 "it is processed by karpenter.",
                                 {}, telemetry::durationBuckets())),
      disrupted_(metrics.counter(
          "karpenter_nodeclaims_disrupted_total",
          "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim "
          "was disrupted and the owning nodepool.",
          {"reason", "nodepool", "capacity_type"})) {}

runtime::Controller& InterruptionController::setup(runtime::Manager& manager) {
  runtime::ControllerOptions options;
  options.workers = 1;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.enqueue({"", kName});
  return controller;
}

runtime::Outcome InterruptionController::reconcile(const runtime::Request&,
                                                   runtime::Context& context) {
  auto summary = pollOnce(context);
  if (!summary) {
    return core::fail(summary.error());
  }
  return runtime::Result::after(kPollAgain);
}

core::Result<PollSummary> InterruptionController::pollOnce(runtime::Context& context) {
  auto notices = queue_.receive();
  if (!notices) {
    return core::fail(notices.error());
  }
  PollSummary summary;
  summary.received = static_cast<int>(notices->size());
  if (notices->empty() || !context.leading()) {
    // Not removed: a successor receives them once the visibility timeout passes.
    return summary;
  }
  std::vector<NodeClaim> claims;
  bool anyActionable = false;
  for (const auto& notice : *notices) {
    anyActionable = anyActionable || notice.kind != InterruptionKind::NoOp;
  }
  if (anyActionable) {
    auto listed = nodeClaims_.list("");
    if (!listed) {
      return core::fail(listed.error().toError().wrap("listing nodeclaims"));
    }
    claims = std::move(*listed);
  }
  core::Status first = core::ok();
  for (const auto& notice : *notices) {
    auto handled = handle(notice, claims, summary, context);
    if (!handled) {
      core::logWarn(context.log(), "handling an interruption message failed",
                    {{"queue", queue_.name()},
                     {"message-kind", label(notice.kind)},
                     {"error", handled.error()}});
      if (first) {
        first = handled;
      }
    }
  }
  if (!first) {
    return core::fail(first.error());
  }
  return summary;
}

core::Status InterruptionController::handle(const cloud::InterruptionNotice& notice,
                                            const std::vector<NodeClaim>& claims,
                                            PollSummary& summary, runtime::Context& context) {
  // A malformed message is counted as no_op, as the parser answers it; upstream leaves it out
  // of the count, but a queue that fills with junk should show on a dashboard.
  received_.with({label(notice.kind)}).inc();
  if (!notice.malformed.empty()) {
    ++summary.malformed;
    core::logWarn(context.log(), "deleting an unreadable interruption message",
                  {{"queue", queue_.name()}, {"reason", notice.malformed}});
    return remove(notice, summary);
  }
  if (notice.kind != InterruptionKind::NoOp) {
    for (const std::string& machineId : notice.machineIds) {
      for (const NodeClaim& claim : claims) {
        if (claim.status.providerID.empty() || machineIdOf(claim.status.providerID) != machineId) {
          continue;
        }
        if (auto acted = act(notice, claim, summary, context); !acted) {
          return acted;  // stays on the queue and comes back
        }
      }
    }
  }
  if (notice.raisedAt) {
    const double seconds = std::chrono::duration<double>(clock_.now() - *notice.raisedAt).count();
    latency_.get().observe(std::max(0.0, seconds));
  }
  return remove(notice, summary);
}

core::Status InterruptionController::act(const cloud::InterruptionNotice& notice,
                                         const NodeClaim& claim, PollSummary& summary,
                                         runtime::Context& context) {
  std::optional<api::corev1::Node> node;
  if (!claim.status.nodeName.empty()) {
    if (auto found = nodes_.get("", claim.status.nodeName)) {
      node = std::move(*found);
    }
  }
  if (auto e = noticeEvent(notice.kind)) {
    event(claim, node, e->type, e->reason, e->message);
  }
  if (notice.kind == InterruptionKind::SpotInterrupted && offerings_ != nullptr) {
    const std::string zone = telemetry::labelValue(claim.metadata, cloud::labels::kZone);
    const std::string type = telemetry::labelValue(claim.metadata, cloud::labels::kInstanceType);
    if (!zone.empty() && !type.empty()) {
      offerings_->markUnavailable(type, zone, cloud::kCapacityTypeSpot, label(notice.kind));
    }
  }
  if (!deletes(notice.kind) || claim.metadata.deletionTimestamp) {
    return core::ok();
  }
  kube::DeleteOptions options;
  options.preconditionUid = claim.metadata.uid;  // the listed claim, not a newer namesake
  auto removed = nodeClaims_.remove("", claim.metadata.name, options);
  if (!removed) {
    if (removed.error().is(kube::Reason::NotFound)) {
      return core::ok();
    }
    return core::fail(removed.error().toError().wrap("deleting nodeclaim " + claim.metadata.name));
  }
  core::logInfo(context.log(), "initiating delete from interruption message",
                {{"nodeclaim", claim.metadata.name},
                 {"message-kind", label(notice.kind)},
                 {"provider-id", claim.status.providerID}});
  event(claim, node, runtime::EventType::Warning, "TerminatingOnInterruption",
        "Interruption triggered termination for the NodeClaim");
  disrupted_
      .with({label(notice.kind), telemetry::labelValue(claim.metadata, cloud::labels::kNodePool),
             telemetry::labelValue(claim.metadata, cloud::labels::kCapacityType)})
      .inc();
  summary.deletedNodeClaims.push_back(claim.metadata.name);
  return core::ok();
}

core::Status InterruptionController::remove(const cloud::InterruptionNotice& notice,
                                            PollSummary& summary) {
  if (auto removed = queue_.remove(notice); !removed) {
    return removed;
  }
  deleted_.get().inc();
  ++summary.removed;
  return core::ok();
}

void InterruptionController::event(const NodeClaim& claim,
                                   const std::optional<api::corev1::Node>& node,
                                   runtime::EventType type, const std::string& reason,
                                   const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  events_->event(api::Object(&nodeClaims_.kind(), std::make_shared<NodeClaim>(claim)), type, reason,
                 message);
  if (node) {
    events_->event(
        api::Object(&nodes_.kind(), std::make_shared<api::corev1::Node>(*node)), type, reason,
        reason == "TerminatingOnInterruption" ? "Interruption triggered termination for the Node"
                                              : message);
  }
}

}  // namespace nodewright::controllers::interruption
