// Termination of a deleted NodeClaim, as Karpenter's node termination and nodeclaim finalizer
// together: taint and drain the Node, terminate the machine, wait until the cloud reports it
// gone, release the Node, then the claim. The order keeps the invariant: a claim's finalizer
// outlives its machine, so a NodeClaim that is gone never leaves a machine running.

#include <algorithm>
#include <memory>

#include "controllers/nodeclaim/lifecycle_controller.h"
#include "controllers/nodeclaim/well_known.h"
#include "core/log.h"
#include "runtime/api_outcome.h"

namespace nodewright::controllers::nodeclaim {
namespace {

using runtime::Outcome;
using runtime::Result;

using runtime::apiFailure;

}  // namespace

Outcome LifecycleController::finalize(const NodeClaim& claim, runtime::Context& context) {
  if (!hasFinalizer(claim.metadata) || !context.leading()) {
    return Result::done();
  }
  const std::string& providerID = claim.status.providerID;
  if (providerID.empty()) {
    // No provider ID written: never launched, or launched and the status write lost (it
    // conflicted with this deletion, or the process died). The machine carries the claim's
    // name; terminate it before the claim may go.
    return finalizeUnrecorded(claim);
  }
  auto machine = cloud_.get(providerID);
  const bool machineGone = !machine && machine.error().is(core::Code::NotFound);
  if (!machine && !machineGone) {
    return core::fail(machine.error().wrap("looking up machine " + providerID));
  }
  std::vector<Node> nodes;
  for (const auto& object : nodes_.byIndex(kube::kByProviderId, providerID)) {
    if (const Node* node = object.as<Node>()) {
      nodes.push_back(*node);
    }
  }
  std::optional<core::TimePoint> deadline;
  const auto& grace = claim.spec.terminationGracePeriod;
  if (grace && !grace->isNever()) {
    deadline = claim.metadata.deletionTimestamp->point() +
               std::chrono::duration_cast<std::chrono::microseconds>(grace->value());
  }
  // A termination timestamp (node repair's) ends the drain sooner still.
  if (auto it = claim.metadata.annotations.find(kTerminationTimestampAnnotation);
      it != claim.metadata.annotations.end()) {
    if (auto at = core::Time::parse(it->second); at && (!deadline || at->point() < *deadline)) {
      deadline = at->point();
    }
  }
  // A machine already gone (a spot interruption, a console terminate) runs no pods: draining its
  // Node could only wait on budgets that count pods as healthy that are not.
  for (const Node& node : machineGone ? std::vector<Node>{} : nodes) {
    if (auto tainted = taintNode(node); !tainted) {
      return core::fail(tainted.error());
    }
    auto drained = drainer_.drain(claim.metadata.uid, node.metadata.name, deadline);
    if (!drained) {
      return core::fail(drained.error());
    }
    if (!drained->done) {
      if (events_ != nullptr) {
        events_->event(
            api::Object(&kube::kindOf<Node>(client_.registry()), std::make_shared<Node>(node)),
            runtime::EventType::Warning, "FailedDraining",
            "Failed to drain node, " + std::to_string(drained->waiting) +
                " pods are waiting to be evicted");
      }
      core::logDebug(context.log(), "draining node",
                     {{"node", node.metadata.name}, {"waiting", drained->waiting}});
      return Result::waiting(options_.drainRecheck);
    }
  }
  auto gone = terminateInstance(claim);
  if (!gone) {
    return core::fail(gone.error());
  }
  if (!*gone) {
    return Result::waiting(options_.instanceTerminationPoll);
  }
  for (const Node& node : nodes) {
    if (auto released = releaseNode(node); !released) {
      return core::fail(released.error());
    }
  }
  drainer_.forget(claim.metadata.uid);
  return releaseClaim(claim);
}

Outcome LifecycleController::finalizeUnrecorded(const NodeClaim& claim) {
  auto machines = cloud_.list();
  if (!machines) {
    return core::fail(machines.error().wrap("listing machines of " + claim.metadata.name));
  }
  for (const cloud::Machine& machine : *machines) {
    if (machine.nodeClaimName != claim.metadata.name) {
      continue;
    }
    NodeClaim recorded = claim;
    recorded.status.providerID = machine.providerID;
    auto gone = terminateInstance(recorded);
    if (!gone) {
      return core::fail(gone.error());
    }
    if (!*gone) {
      return Result::waiting(options_.instanceTerminationPoll);
    }
  }
  drainer_.forget(claim.metadata.uid);
  return releaseClaim(claim);
}

core::Status LifecycleController::taintNode(const Node& node) {
  const bool tainted = std::any_of(
      node.spec.taints.begin(), node.spec.taints.end(), [](const api::corev1::Taint& t) {
        return t.key == kDisruptedTaintKey && t.effect == api::corev1::kTaintEffectNoSchedule;
      });
  if (tainted) {
    return {};
  }
  auto updated = kube::updateWithRetry(
      client_, kube::kindOf<Node>(client_.registry()), "", node.metadata.name,
      [](api::Object& object) {
        Node* target = object.as<Node>();
        if (target == nullptr || std::any_of(target->spec.taints.begin(), target->spec.taints.end(),
                                             [](const api::corev1::Taint& t) {
                                               return t.key == kDisruptedTaintKey &&
                                                      t.effect ==
                                                          api::corev1::kTaintEffectNoSchedule;
                                             })) {
          return false;
        }
        api::corev1::Taint taint;
        taint.key = kDisruptedTaintKey;
        taint.effect = api::corev1::kTaintEffectNoSchedule;
        target->spec.taints.push_back(std::move(taint));
        return true;
      });
  if (!updated && !updated.error().is(kube::Reason::NotFound)) {
    return core::fail(updated.error().toError().wrap("tainting node " + node.metadata.name));
  }
  return {};
}

// Removal is sent once (again only after removeResend, in case it was lost), and the claim
// waits by polling get: a terminating machine still runs, and its claim must hold until it
// does not.
core::Result<bool> LifecycleController::terminateInstance(const NodeClaim& claim) {
  const std::string& providerID = claim.status.providerID;
  const core::TimePoint at = now();
  bool send = true;
  {
    std::lock_guard lock(mu_);
    auto it = removeSent_.find(providerID);
    send = it == removeSent_.end() || at - it->second >= options_.removeResend;
  }
  auto forget = [&] {
    std::lock_guard lock(mu_);
    removeSent_.erase(providerID);
    return true;
  };
  if (send) {
    auto removed = cloud_.remove(providerID);
    if (!removed) {
      if (removed.error().is(core::Code::NotFound)) {
        return forget();
      }
      return core::fail(removed.error().wrap("terminating machine " + providerID));
    }
    {
      std::lock_guard lock(mu_);
      removeSent_[providerID] = at;
    }
    event(claim, runtime::EventType::Normal, "TerminatingInstance",
          "Terminating machine " + providerID);
  }
  auto got = cloud_.get(providerID);
  if (!got) {
    if (got.error().is(core::Code::NotFound)) {
      return forget();
    }
    return core::fail(got.error().wrap("looking up machine " + providerID));
  }
  return false;
}

// The Node goes with its machine; deleting it first means the finalizer removal below ends it.
core::Status LifecycleController::releaseNode(const Node& node) {
  const auto& kind = kube::kindOf<Node>(client_.registry());
  if (!node.metadata.deletionTimestamp) {
    auto removed = client_.remove(kind, "", node.metadata.name);
    if (!removed) {
      if (removed.error().is(kube::Reason::NotFound)) {
        return {};
      }
      return core::fail(removed.error().toError().wrap("deleting node " + node.metadata.name));
    }
  }
  std::optional<Node> removedFrom;
  auto released = kube::updateWithRetry(
      client_, kind, "", node.metadata.name, [&removedFrom](api::Object& object) {
        Node* target = object.as<Node>();
        if (target == nullptr ||
            std::erase(target->metadata.finalizers, std::string(kTerminationFinalizer)) == 0) {
          removedFrom.reset();
          return false;
        }
        removedFrom = *target;
        return true;
      });
  if (!released && !released.error().is(kube::Reason::NotFound)) {
    return core::fail(
        released.error().toError().wrap("removing the finalizer of node " + node.metadata.name));
  }
  if (released && removedFrom) {
    metrics_.countNodeTerminated(*removedFrom, now());
  }
  return {};
}

runtime::Outcome LifecycleController::releaseClaim(const NodeClaim& claim) {
  NodeClaim next = claim;
  std::erase(next.metadata.finalizers, std::string(kTerminationFinalizer));
  auto updated = claims_.update(next);
  if (!updated) {
    if (updated.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return apiFailure(updated.error(), "removing the finalizer");
  }
  metrics_.countClaimTerminated(claim, now());
  event(claim, runtime::EventType::Normal, "Terminated",
        claim.status.providerID.empty() ? "NodeClaim released, never launched"
                                        : "Machine " + claim.status.providerID + " terminated");
  return Result::done();
}

}  // namespace nodewright::controllers::nodeclaim
