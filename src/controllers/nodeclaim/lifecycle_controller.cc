#include "controllers/nodeclaim/lifecycle_controller.h"

#include <algorithm>
#include <memory>

#include "api/codec.h"
#include "api/object.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/well_known.h"
#include "controllers/telemetry/karpenter.h"

namespace nodewright::controllers::nodeclaim {

using api::karpenter::NodeClaim;
using runtime::Outcome;
using runtime::Result;

namespace {

// A conflict means someone wrote since our read: read again soon, without it counting as a
// failure. Anything else backs off as an error.
Outcome failure(const core::Error& error) {
  if (error.is(core::Code::Conflict)) {
    return Result::again();
  }
  return core::fail(error);
}

double secondsBetween(const api::Condition* from, const api::Condition* to) {
  if (from == nullptr || to == nullptr) {
    return 0;
  }
  return std::chrono::duration<double>(to->lastTransitionTime.point() -
                                       from->lastTransitionTime.point())
      .count();
}

}  // namespace

std::string nodePoolOf(const NodeClaim& claim) {
  auto it = claim.metadata.labels.find(kNodePoolLabel);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

bool hasFinalizer(const api::ObjectMeta& metadata) {
  const auto& f = metadata.finalizers;
  return std::find(f.begin(), f.end(), kTerminationFinalizer) != f.end();
}

LifecycleController::LifecycleController(kube::Client& client, cloud::CloudProvider& cloud,
                                         const kube::Cache& nodes, const core::Clock& clock,
                                         runtime::EventRecorder* events, Metrics& metrics,
                                         Drainer& drainer, const Options& options)
    : client_(client),
      claims_(client),
      cloud_(cloud),
      nodes_(nodes),
      clock_(clock),
      events_(events),
      metrics_(metrics),
      drainer_(drainer),
      options_(options) {}

Outcome LifecycleController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto got = claims_.get("", request.name);
  if (!got) {
    if (got.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return failure(got.error().toError().wrap("reading NodeClaim " + request.name));
  }
  NodeClaim claim = std::move(*got);
  if (claim.metadata.deletionTimestamp) {
    return finalize(claim, context);
  }
  if (!context.leading()) {
    return Result::done();
  }
  // The finalizer goes on before anything is launched, so no machine can outlive its claim.
  if (!hasFinalizer(claim.metadata)) {
    NodeClaim next = claim;
    next.metadata.finalizers.push_back(kTerminationFinalizer);
    auto updated = claims_.update(next);
    if (!updated) {
      if (updated.error().is(kube::Reason::NotFound)) {
        return Result::done();
      }
      return failure(updated.error().toError().wrap("adding the finalizer"));
    }
    claim = std::move(*updated);
  }

  const NodeClaim before = claim;
  initConditions(claim.status.conditions, {kLaunched, kRegistered, kInitialized, kReady},
                 claim.metadata.generation, now());
  std::optional<std::chrono::nanoseconds> after;
  auto run = [&](core::Result<Step> step) -> std::optional<Outcome> {
    if (!step) {
      // What the phase recorded (a Launched=False reason) is still worth writing.
      updateReady(claim);
      auto written = writeStatus(before, claim, context);
      if (!written) {
        return written;
      }
      return failure(step.error());
    }
    if (step->stop) {
      return Outcome(Result::done());
    }
    if (step->after && (!after || *step->after < *after)) {
      after = step->after;
    }
    return std::nullopt;
  };

  // A claim whose launch keeps failing times out before it is tried again.
  if (!isTrue(claim.status.conditions, kLaunched)) {
    if (auto out = run(liveness(claim))) {
      return *out;
    }
  }
  if (auto out = run(launch(claim, context))) {
    return *out;
  }
  std::optional<Node> node;
  if (isTrue(claim.status.conditions, kLaunched)) {
    if (auto out = run(registration(claim, node))) {
      return *out;
    }
    if (auto out = run(initialization(claim, node))) {
      return *out;
    }
    if (auto out = run(liveness(claim))) {
      return *out;
    }
  }
  updateReady(claim);
  auto written = writeStatus(before, claim, context);
  if (!written || written->requeue) {
    return written;
  }
  return after ? Result::after(*after) : Result::done();
}

void LifecycleController::updateReady(NodeClaim& claim) {
  std::string message;
  bool anyFalse = false;
  for (const char* type : {kLaunched, kRegistered, kInitialized}) {
    const api::Condition* condition = findCondition(claim.status.conditions, type);
    const std::string status = condition ? condition->status : kUnknown;
    if (status == kTrue) {
      continue;
    }
    anyFalse = anyFalse || status == kFalse;
    message += (message.empty() ? "" : ", ") + std::string(type) + "=" + status;
  }
  if (message.empty()) {
    setCondition(claim.status.conditions, kReady, kTrue, "Ready", "", claim.metadata.generation,
                 now());
    return;
  }
  setCondition(claim.status.conditions, kReady, anyFalse ? kFalse : kUnknown, "UnhealthyDependents",
               message, claim.metadata.generation, now());
}

// Unchanged status is not written: every write is a new resourceVersion and an event for every
// watcher (and a reconcile of this claim).
Outcome LifecycleController::writeStatus(const NodeClaim& before, const NodeClaim& claim,
                                         runtime::Context& context) {
  if (api::toJson(before.status) == api::toJson(claim.status) || !context.leading()) {
    return Result::done();
  }
  auto written = claims_.updateStatus(claim);
  if (!written) {
    if (written.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return failure(written.error().toError().wrap("writing the status"));
  }
  countTransitions(before, claim);
  return Result::done();
}

// Counted once the transition is stored, so a write lost to a conflict is not counted twice.
void LifecycleController::countTransitions(const NodeClaim& before, const NodeClaim& claim) {
  const auto& was = before.status.conditions;
  const auto& is = claim.status.conditions;
  const runtime::Labels pool = {nodePoolOf(claim)};
  if (!isTrue(was, kLaunched) && isTrue(is, kLaunched)) {
    metrics_.launched.with(pool).inc();
  }
  if (!isTrue(was, kRegistered) && isTrue(is, kRegistered)) {
    metrics_.registered.with(pool).inc();
    metrics_.nodesCreated
        .with({pool[0], telemetry::labelValue(claim.metadata, "topology.kubernetes.io/zone")})
        .inc();
    metrics_.registrationDuration.with(pool).observe(
        secondsBetween(findCondition(is, kLaunched), findCondition(is, kRegistered)));
  }
  if (!isTrue(was, kInitialized) && isTrue(is, kInitialized)) {
    metrics_.initialized.with(pool).inc();
    metrics_.initializationDuration.with(pool).observe(
        secondsBetween(findCondition(is, kRegistered), findCondition(is, kInitialized)));
  }
}

std::optional<api::corev1::Node> LifecycleController::nodeFor(const NodeClaim& claim) const {
  if (claim.status.providerID.empty()) {
    return std::nullopt;
  }
  auto found = nodes_.byIndex(kube::kByProviderId, claim.status.providerID);
  if (found.size() != 1 || found.front().as<Node>() == nullptr) {
    return std::nullopt;
  }
  return *found.front().as<Node>();
}

core::Status LifecycleController::deleteClaim(const NodeClaim& claim) {
  kube::DeleteOptions options;
  options.preconditionUid = claim.metadata.uid;  // never a successor of the same name
  auto removed = claims_.remove("", claim.metadata.name, options);
  if (!removed && !removed.error().is(kube::Reason::NotFound)) {
    return core::fail(removed.error().toError().wrap("deleting NodeClaim " + claim.metadata.name));
  }
  return {};
}

void LifecycleController::event(const NodeClaim& claim, runtime::EventType type,
                                const std::string& reason, const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  events_->event(api::Object(&claims_.kind(), std::make_shared<NodeClaim>(claim)), type, reason,
                 message);
}

}  // namespace nodewright::controllers::nodeclaim
