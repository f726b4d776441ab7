#include "cloud/aws/instance/instance_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "api/labels.h"
#include "aws/error_class.h"
#include "cloud/aws/instancetype/types.h"
#include "core/log.h"

// create(): plan the launch (launch/plan.h), send one CreateFleet, learn from its errors.
// get/list/remove/GC are in instance_lookup.cc.
namespace nodewright::cloud::aws {
namespace {

constexpr std::string_view kIdempotencyMismatch = "IdempotentParameterMismatch";

std::string describeErrors(const std::vector<sdk::FleetError>& errors) {
  std::string out;
  for (const sdk::FleetError& e : errors) {
    out +=
        fmt::format("{}{} {} in {}: {}", out.empty() ? "" : "; ", e.errorCode, e.instanceType,
                    e.availabilityZone.empty() ? e.subnetId : e.availabilityZone, e.errorMessage);
  }
  return out;
}

}  // namespace

InstanceProvider::InstanceProvider(sdk::Ec2Client& ec2, LaunchTemplateProvider& templates,
                                   UnavailableOfferings& unavailable, const core::Clock& clock,
                                   InstanceProviderOptions options)
    : ec2_(ec2),
      templates_(templates),
      unavailable_(unavailable),
      clock_(clock),
      options_(std::move(options)),
      describe_(clock, options_.describeBatch,
                [this](const std::vector<std::string>& ids) { return describeBatch(ids); }),
      terminate_(clock, options_.terminateBatch,
                 [this](const std::vector<std::string>& ids) { return terminateBatch(ids); }) {}

core::Result<sdk::Instance> InstanceProvider::create(const LaunchRequest& request) {
  auto planned = planLaunch(request, templates_, unavailable_);
  if (!planned) {
    return core::fail(planned.error().wrap("launching " + request.claim.metadata.name));
  }
  return launch(request, *planned);
}

core::Result<sdk::Instance> InstanceProvider::launch(const LaunchRequest& request,
                                                     const LaunchPlan& plan) {
  const api::karpenter::NodeClaim& claim = request.claim;
  const std::string claimKey =
      claim.metadata.uid.empty() ? claim.metadata.name : claim.metadata.uid;
  const int tries = attempt(claimKey);
  if (tries > 0) {
    // An earlier attempt under another token may have launched after all (its answer lost, or
    // a mismatch whose first request did launch): the claim's tag tells, before a new token
    // could launch a second instance.
    auto found = findLaunched(claim);
    if (found) {
      return found;
    }
    if (!found.error().is(core::Code::NotFound)) {
      return core::fail(found.error().wrap("looking for an earlier launch"));
    }
  }
  sdk::FleetRequest fleet;
  fleet.launchTemplateConfigs = plan.configs;
  fleet.capacityType = plan.fleetCapacityType;
  // Karpenter sends no allocation strategy for capacity blocks and interruptible reservations.
  fleet.allocationStrategy = plan.capacityType == kCapacityTypeSpot ? "price-capacity-optimized"
                             : plan.fleetCapacityType == kCapacityTypeOnDemand ? "lowest-price"
                                                                               : "";
  fleet.targetCapacity = 1;
  fleet.clientToken = fleetClientToken(claim, tries);
  fleet.tags = instanceTags(options_.clusterName, claim, request.nodeClass);

  auto result = ec2_.createFleet(fleet);
  if (!result) {
    if (result.error().code.starts_with("InvalidLaunchTemplate")) {
      // A template deleted behind our back (or by a node class change): make it again next time.
      for (const TemplateGroup& group : plan.groups) {
        templates_.invalidate(group.launchTemplateName);
      }
    }
    if (result.error().code == kIdempotencyMismatch) {
      // The token's first request differed (offerings changed since): whether it launched is
      // told by the claim's tag, and the next attempt gets a fresh token either way.
      setAttempt(claimKey, tries + 1);
      if (auto found = findLaunched(claim)) {
        return found;
      }
    }
    return core::fail(sdk::toCoreError(result.error()).wrap("creating fleet"));
  }
  recordErrors(*result, plan);
  if (result->instanceIds.empty()) {
    setAttempt(claimKey, tries + 1);
    const bool capacity = !result->errors.empty() &&
                          std::all_of(result->errors.begin(), result->errors.end(),
                                      [](const auto& e) { return isCapacityError(e.errorCode); });
    const std::string message =
        fmt::format("creating fleet for {}: no {} instance launched: {}", claim.metadata.name,
                    plan.capacityType, describeErrors(result->errors));
    return core::fail(
        core::Error(capacity ? core::Code::InsufficientCapacity : core::Code::Internal, message));
  }
  // Launched: the count goes, so it cannot grow with every claim that ever failed once. A
  // repeated create() (its answer lost) then replays the first token's answer: this one when
  // it launched at once; otherwise that failure, after which the next attempt finds this
  // instance by its tag before trying a new token.
  forgetAttempts(claimKey);

  sdk::Instance instance;
  instance.instanceId = result->instanceIds.front();
  instance.instanceType = result->instanceType;
  instance.subnetId = result->subnetId;
  instance.availabilityZone = result->availabilityZone;
  if (instance.availabilityZone.empty() && plan.zoneBySubnet.contains(result->subnetId)) {
    instance.availabilityZone = plan.zoneBySubnet.at(result->subnetId);
  }
  for (const TemplateGroup& group : plan.groups) {
    for (const InstanceType* type : group.types) {
      if (type->name == instance.instanceType && instance.imageId.empty()) {
        instance.imageId = group.imageId;
      }
    }
  }
  instance.state = "pending";
  instance.tenancy = plan.tenancy;
  instance.placementGroupId = plan.placementGroupId;
  instance.partitionNumber = plan.placementPartition;
  instance.lifecycle = result->lifecycle == kCapacityTypeSpot ? "spot" : "";
  for (const UsableReservation& r : plan.reservations) {
    if (r.reservation.instanceType == instance.instanceType &&
        r.reservation.availabilityZone == instance.availabilityZone) {
      // As DescribeInstances will tell (toMachine reads it the same way).
      instance.capacityReservationId = r.reservation.id;
      instance.capacityReservationPreference = "capacity-reservations-only";
      instance.lifecycle = marketTypeOf(r.reservation);
    }
  }
  instance.launchTime = clock_.now();
  instance.tags = fleet.tags;
  core::logInfo("aws: launched instance", {{"nodeclaim", claim.metadata.name},
                                           {"instance-id", instance.instanceId},
                                           {"instance-type", instance.instanceType},
                                           {"zone", instance.availabilityZone},
                                           {"capacity-type", plan.capacityType}});
  return instance;
}

core::Result<sdk::Instance> InstanceProvider::findLaunched(const api::karpenter::NodeClaim& claim) {
  auto found = ec2_.describeInstances(
      {}, {{"tag:" + std::string(kTagNodeClaim), {claim.metadata.name}},
           {"tag:" + clusterTagKey(options_.clusterName), {"owned"}},
           {"instance-state-name", {"pending", "running", "stopping", "stopped"}}});
  if (!found) {
    return core::fail(sdk::toCoreError(found.error()));
  }
  if (found->empty()) {
    return core::fail(core::Error::notFound("no instance tagged for " + claim.metadata.name));
  }
  return found->front();
}

void InstanceProvider::recordErrors(const sdk::FleetResult& result, const LaunchPlan& plan) {
  for (const sdk::FleetError& e : result.errors) {
    if (e.errorCode.starts_with("InvalidLaunchTemplate")) {
      // Deleted behind our back: the next launch creates it again.
      for (const TemplateGroup& group : plan.groups) {
        templates_.invalidate(group.launchTemplateName);
      }
    }
    if (!isCapacityError(e.errorCode) || e.instanceType.empty()) {
      continue;
    }
    std::string zone = e.availabilityZone;
    if (zone.empty() && plan.zoneBySubnet.contains(e.subnetId)) {
      zone = plan.zoneBySubnet.at(e.subnetId);
    }
    if (plan.capacityType == kCapacityTypeReserved) {
      // A full reservation is no sign about the pool: only the reservation is marked.
      for (const UsableReservation& r : plan.reservations) {
        if (r.reservation.instanceType == e.instanceType &&
            r.reservation.availabilityZone == zone && options_.reservationFull) {
          options_.reservationFull(r.reservation.id);
        }
      }
      continue;
    }
    if (!zone.empty()) {
      unavailable_.markUnavailable(e.instanceType, zone, plan.capacityType, e.errorCode);
    }
  }
}

int InstanceProvider::attempt(const std::string& claimKey) const {
  std::lock_guard lock(mu_);
  auto it = attempts_.find(claimKey);
  return it == attempts_.end() ? 0 : it->second;
}

void InstanceProvider::forgetAttempts(const std::string& claimKey) {
  std::lock_guard lock(mu_);
  attempts_.erase(claimKey);
}

void InstanceProvider::setAttempt(const std::string& claimKey, int attempt) {
  std::lock_guard lock(mu_);
  attempts_[claimKey] = attempt;
}

}  // namespace nodewright::cloud::aws
