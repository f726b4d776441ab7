#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/interruption.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/controller.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// Karpenter's interruption controller (aws/karpenter-provider-aws pkg/controllers/interruption),
// cloud-neutral: it reads the cloud's interruption queue and, for each NodeClaim whose machine a
// notice names, records events and deletes the NodeClaim, so the termination controller drains
// it and pending pods get a replacement at once rather than after the machine vanishes. A spot
// interruption also marks its offering unavailable, so the replacement is not launched into the
// pool that is being reclaimed. A singleton that polls for as long as it runs.
//
// What each kind does to the NodeClaims it names (as upstream):
//   spot_interrupted                  events, offering unavailable, delete
//   scheduled_change, instance_stopped, instance_terminated, capacity_reservation_interrupted
//                                     events, delete
//   rebalance_recommendation          events only
//   no_op (unknown, ignored, malformed)  nothing
// Invariant: a notice is removed from the queue only once it was acted on; one whose action
// failed stays and is delivered again (after the queue's visibility timeout), and acting twice
// is harmless (deleting a deleting NodeClaim does nothing).
namespace nodewright::controllers::interruption {

struct PollSummary {
  int received = 0;
  int removed = 0;
  int malformed = 0;
  std::vector<std::string> deletedNodeClaims;  // in the order they were deleted
};

// Thread-safe as the runtime uses it (one reconcile at a time). `client`, `queue`, `offerings`
// (may be null: nothing is marked), `clock`, `events` (may be null: no events) and `metrics`
// must outlive it.
class InterruptionController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "interruption";

  InterruptionController(kube::Client& client, cloud::InterruptionQueue& queue,
                         cloud::OfferingAvailability* offerings, const core::Clock& clock,
                         runtime::EventRecorder* events, runtime::Registry& metrics);

  // runtime::Reconciler: one poll, then at once again (the queue's long poll paces the loop).
  // An error of the queue or of acting on a notice backs off.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Registers the singleton with `manager` and enqueues it. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

  // Receives once (blocking up to the queue's long-poll wait) and handles every notice: each
  // one handled, unknown or malformed is removed; the first error handling one is returned
  // after the others were handled.
  core::Result<PollSummary> pollOnce(runtime::Context& context);

 private:
  using NodeClaim = api::karpenter::NodeClaim;

  // Acts on the NodeClaims among `claims` whose machine `notice` names.
  core::Status handle(const cloud::InterruptionNotice& notice, const std::vector<NodeClaim>& claims,
                      PollSummary& summary, runtime::Context& context);
  core::Status act(const cloud::InterruptionNotice& notice, const NodeClaim& claim,
                   PollSummary& summary, runtime::Context& context);
  core::Status remove(const cloud::InterruptionNotice& notice, PollSummary& summary);
  void event(const NodeClaim& claim, const std::optional<api::corev1::Node>& node,
             runtime::EventType type, const std::string& reason, const std::string& message);

  kube::Typed<NodeClaim> nodeClaims_;
  kube::Typed<api::corev1::Node> nodes_;
  cloud::InterruptionQueue& queue_;
  cloud::OfferingAvailability* offerings_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  runtime::Family<runtime::Counter>& received_;
  runtime::Family<runtime::Counter>& deleted_;
  runtime::Family<runtime::Histogram>& latency_;
  runtime::Family<runtime::Counter>& disrupted_;
};

// The last segment of a provider ID ("i-0123" of "aws:///us-east-1a/i-0123"): the machine id
// interruption notices name.
std::string machineIdOf(std::string_view providerID);

}  // namespace nodewright::controllers::interruption
