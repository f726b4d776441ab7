// The Launched phase and the registration timeout of the NodeClaim lifecycle.

#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/lifecycle_controller.h"
#include "controllers/nodeclaim/well_known.h"
#include "core/log.h"

namespace nodewright::controllers::nodeclaim {
namespace {

// Condition messages stay readable in `kubectl get -o wide` and far below etcd's limits.
std::string truncated(const std::string& message) {
  constexpr size_t kMax = 300;
  return message.size() <= kMax ? message : message.substr(0, kMax) + "...";
}

}  // namespace

// The cloud's create is idempotent per claim, so a retry after a lost answer (or a crash before
// the status write) finds the machine launched before instead of making a second one.
auto LifecycleController::launch(NodeClaim& claim, runtime::Context& context)
    -> core::Result<Step> {
  if (isTrue(claim.status.conditions, kLaunched) && !claim.status.providerID.empty()) {
    return Step{};
  }
  const std::string& name = claim.metadata.name;
  const int64_t generation = claim.metadata.generation;
  auto created = cloud_.create(claim);
  if (!created) {
    const core::Error& error = created.error();
    if (error.is(core::Code::InsufficientCapacity)) {
      // Karpenter's answer: this claim's requirements cannot be met now; the provisioner makes
      // a new claim that avoids the offerings the cloud just marked unavailable.
      event(claim, runtime::EventType::Warning, "InsufficientCapacityError",
            "NodeClaim " + name + " event: " + truncated(error.message()));
      core::logError(context.log(), "failed launching nodeclaim",
                     {{"nodeclaim", name}, {"error", error}});
      if (auto deleted = deleteClaim(claim); !deleted) {
        return core::fail(deleted.error());
      }
      Step stop;
      stop.stop = true;
      return stop;
    }
    // The claim or its node class cannot launch as written: False until someone fixes it; any
    // other failure is transient: Unknown while retrying. Either way the error backs off.
    const bool invalid = error.is(core::Code::Invalid) || error.is(core::Code::NotFound);
    setCondition(claim.status.conditions, kLaunched, invalid ? kFalse : kUnknown, "LaunchFailed",
                 truncated(error.message()), generation, now());
    if (invalid) {
      event(claim, runtime::EventType::Warning, "LaunchFailed", truncated(error.message()));
    }
    return core::fail(error.wrap("launching nodeclaim"));
  }
  const cloud::Machine& machine = *created;

  // The machine's labels (instance type, zone, capacity type, arch...) go on the claim first:
  // registration copies the claim's labels onto the Node.
  NodeClaim labelled = claim;
  for (const auto& [key, value] : machine.labels) {
    labelled.metadata.labels[key] = value;
  }
  // The node class's drift hash, as it was when the machine launched.
  for (const auto& [key, value] : machine.annotations) {
    labelled.metadata.annotations[key] = value;
  }
  if (labelled.metadata.labels != claim.metadata.labels ||
      labelled.metadata.annotations != claim.metadata.annotations) {
    auto updated = claims_.update(labelled);
    if (!updated) {
      return core::fail(updated.error().toError().wrap("labelling the launched NodeClaim"));
    }
    api::karpenter::NodeClaimStatus status = std::move(claim.status);
    claim = std::move(*updated);
    claim.status = std::move(status);
  }
  claim.status.providerID = machine.providerID;
  claim.status.imageID = machine.imageID;
  claim.status.capacity = machine.capacity;
  claim.status.allocatable = machine.allocatable;
  setCondition(claim.status.conditions, kLaunched, kTrue, "Launched", "", generation, now());
  event(claim, runtime::EventType::Normal, "Launched",
        "Launched " + machine.providerID + " (" + machine.instanceType + ", " + machine.zone +
            ", " + machine.capacityType + ")");
  core::logInfo(context.log(), "launched nodeclaim",
                {{"nodeclaim", name},
                 {"provider-id", machine.providerID},
                 {"instance-type", machine.instanceType},
                 {"zone", machine.zone}});
  return Step{};
}

// A machine whose Node never joins is a leak that costs money: after registrationTTL from the
// launch the claim is deleted, and its termination terminates the machine.
auto LifecycleController::liveness(NodeClaim& claim) -> core::Result<Step> {
  if (isTrue(claim.status.conditions, kRegistered)) {
    return Step{};
  }
  // From the launch, or, for a claim whose launch keeps failing (a node class that never
  // resolves), from its creation: it must not hold its pods forever.
  const api::Condition* launched = findCondition(claim.status.conditions, kLaunched);
  const core::TimePoint start = launched != nullptr && launched->status == kTrue
                                    ? launched->lastTransitionTime.point()
                                    : claim.metadata.creationTimestamp.point();
  const core::TimePoint deadline =
      start + std::chrono::duration_cast<std::chrono::microseconds>(options_.registrationTTL);
  const core::TimePoint at = now();
  if (at < deadline) {
    Step step;
    step.after = deadline - at;
    return step;
  }
  event(claim, runtime::EventType::Warning, "RegistrationTimeout",
        "Node not registered with the cluster within " +
            std::to_string(options_.registrationTTL.count()) + "s");
  if (auto deleted = deleteClaim(claim); !deleted) {
    return core::fail(deleted.error());
  }
  Step stop;
  stop.stop = true;
  return stop;
}

}  // namespace nodewright::controllers::nodeclaim
