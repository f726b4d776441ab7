#include "cloud/aws/cloud_provider.h"

#include <algorithm>

#include <fmt/format.h>

#include "cloud/candidates.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud::aws {
namespace {

constexpr const char* kResourceEfa = "vpc.amazonaws.com/efa";

std::string notReadyMessage(const ResolvedNodeClass& resolved) {
  for (const auto& c : resolved.status.conditions) {
    if (c.type == "Ready") {
      return c.message;
    }
  }
  return "it has no Ready condition";
}

// Whether `requirements` allow the reserved capacity type; as for a claim, an unmentioned
// capacity type is on-demand only.
bool allowsReserved(
    const std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>& requirements) {
  api::karpenter::NodeClaim probe;
  probe.spec.requirements = requirements;
  return claimAllows(probe, kLabelCapacityType, kCapacityTypeReserved);
}

// As Karpenter v1.14's offerings: every type of a node class with a placement group is in it.
void addPlacementGroupLabels(std::vector<InstanceType>& types, const ResolvedNodeClass& resolved) {
  if (!resolved.placementGroup) {
    return;
  }
  for (InstanceType& type : types) {
    type.labels[labels::kPlacementGroupId] = resolved.placementGroup->groupId;
  }
}

// Karpenter v1.14's PlacementGroupDrift: the group the claim launched in (its label) is not the
// one its node class resolves to now (a selector added, removed or changed).
DriftCheck placementGroupDrift(const std::string& launchedIn, const std::string& resolved) {
  DriftCheck check;
  check.name = "PlacementGroup";
  if (launchedIn == resolved) {
    check.detail = resolved.empty() ? "in no placement group, as the node class selects none"
                                    : resolved + " is the node class's placement group";
    return check;
  }
  check.drifted = true;
  check.reason = "PlacementGroupDrift";
  api::reflect::FieldDiff diff;
  diff.path = "spec.placementGroupSelector";
  diff.from = api::Json(launchedIn);
  diff.to = api::Json(resolved);
  check.changes.push_back(std::move(diff));
  check.detail =
      fmt::format("launched in {}, the node class's is now {}",
                  launchedIn.empty() ? "none" : launchedIn, resolved.empty() ? "none" : resolved);
  return check;
}

int efaRequested(const api::karpenter::NodeClaim& claim) {
  auto it = claim.spec.resources.requests.find(kResourceEfa);
  return it == claim.spec.resources.requests.end() ? 0 : static_cast<int>(it->second.value());
}

}  // namespace

AwsCloudProvider::AwsCloudProvider(AwsProviders providers, NodeClassLookup nodeClasses,
                                   api::karpenter::HashPolicy hashPolicy)
    : providers_(providers),
      nodeClasses_(std::move(nodeClasses)),
      hashPolicy_(std::move(hashPolicy)) {}

core::Result<AwsCloudProvider::NodeClassView> AwsCloudProvider::nodeClass(const std::string& name) {
  auto found = nodeClasses_(name);
  if (!found) {
    return core::fail(found.error().wrap("EC2NodeClass " + name));
  }
  auto resolved = providers_.resolver.resolve(*found);
  if (!resolved) {
    return core::fail(resolved.error().wrap("resolving EC2NodeClass " + name));
  }
  if (!resolved->ready()) {
    return core::fail(core::Error::invalid(
        fmt::format("EC2NodeClass {} is not ready: {}", name, notReadyMessage(*resolved))));
  }
  NodeClassView view{std::move(*found), std::move(*resolved), {}};
  for (const auto& subnet : view.resolved.subnets) {
    view.zones.push_back(subnet.availabilityZone);
  }
  std::sort(view.zones.begin(), view.zones.end());
  view.zones.erase(std::unique(view.zones.begin(), view.zones.end()), view.zones.end());
  return view;
}

core::Result<Machine> AwsCloudProvider::create(const api::karpenter::NodeClaim& claim) {
  const std::string& claimName = claim.metadata.name;
  auto view = nodeClass(claim.spec.nodeClassRef.name);
  if (!view) {
    return core::fail(view.error().wrap("launching " + claimName));
  }
  const auto& kubelet = effectiveKubelet(view->nodeClass.spec, claim.spec.kubelet);
  auto types = providers_.instanceTypes.listShared(view->nodeClass, kubelet, view->zones,
                                                   efaRequested(claim));
  if (!types) {
    return core::fail(types.error().wrap("launching " + claimName));
  }
  // Held until the launch is done: the candidates point into it.
  const std::shared_ptr<const InstanceTypes> shared = std::move(*types);
  std::vector<UsableReservation> reservations;
  // The shared types with their reserved offerings and placement group, when there are any.
  std::vector<InstanceType> withReserved;
  if (allowsReserved(claim.spec.requirements)) {
    reservations = usableReservations(view->resolved);
  }
  if (!reservations.empty() || view->resolved.placementGroup) {
    withReserved = shared->compatible;
    addReservedOfferings(withReserved, reservations, view->zones);
    addPlacementGroupLabels(withReserved, view->resolved);
  }
  CandidateTypes candidates = launchableTypes(
      reservations.empty() && !view->resolved.placementGroup ? shared->compatible : withReserved,
      claim);
  if (candidates.types.empty()) {
    return core::fail(
        core::Error(core::Code::InsufficientCapacity,
                    fmt::format("launching {}: {} ({} more excluded by EC2NodeClass {})", claimName,
                                candidates.emptyReason, shared->excluded.size(),
                                view->nodeClass.metadata.name)));
  }
  auto instance = providers_.instances.create(
      {claim, view->nodeClass, view->resolved, candidates.types, std::move(reservations)});
  if (!instance) {
    return core::fail(instance.error());
  }
  if (view->resolved.placementGroup && view->resolved.placementGroup->strategy == "partition" &&
      !instance->partitionNumber) {
    // EC2 chose the partition: only DescribeInstances tells which (Karpenter's registration
    // hook asks the same). Unknown until then if it cannot say now.
    if (auto described = providers_.instances.get(instance->instanceId)) {
      instance->partitionNumber = described->partitionNumber;
    }
  }
  if (!instance->capacityReservationId.empty()) {
    providers_.resolver.capacityReservations().markLaunched(instance->capacityReservationId,
                                                            instance->launchTime);
  }
  const InstanceType* launched = nullptr;
  for (const InstanceType* type : candidates.types) {
    if (type->name == instance->instanceType) {
      launched = type;
      break;
    }
  }
  // CreateFleet's answer knows neither the instance's security groups nor its interfaces: the
  // drift facts come from the first DescribeInstances that sees it (get, list or isDrifted).
  Machine machine = machineOf(*instance, launched);
  // What the claim is compared against for drift: the node class it launched from.
  api::karpenter::stampNodeClass(view->nodeClass, hashPolicy_, machine.annotations);
  return machine;
}

Machine AwsCloudProvider::machineOf(const sdk::Instance& instance, const InstanceType* type) const {
  Machine machine = toMachine(instance);
  if (type != nullptr) {
    for (const auto& [key, value] : type->labels) {
      machine.labels.emplace(key, value);
    }
    machine.capacity = type->capacity;
    machine.allocatable = type->allocatable();
  }
  return machine;
}

core::Result<Machine> AwsCloudProvider::get(std::string_view providerID) {
  auto id = parseProviderID(providerID);
  if (!id) {
    return core::fail(id.error());
  }
  auto instance = providers_.instances.get(*id);
  if (!instance) {
    return core::fail(instance.error());
  }
  remember(*instance);
  return machineOf(*instance, nullptr);
}

core::Result<std::vector<Machine>> AwsCloudProvider::list() {
  auto instances = providers_.instances.list();
  if (!instances) {
    return core::fail(instances.error());
  }
  std::vector<Machine> out;
  out.reserve(instances->size());
  std::map<std::string, InstanceFacts> facts;
  for (const auto& instance : *instances) {
    out.push_back(machineOf(instance, nullptr));
    facts.emplace(instance.instanceId, InstanceFacts(instance));
  }
  {
    // Everything the cluster runs: instances gone since the last list are forgotten.
    std::lock_guard lock(mu_);
    facts_ = std::move(facts);
  }
  return out;
}

core::Status AwsCloudProvider::remove(std::string_view providerID) {
  auto id = parseProviderID(providerID);
  if (!id) {
    return core::fail(id.error());
  }
  {
    std::lock_guard lock(mu_);
    auto it = facts_.find(*id);
    if (it != facts_.end()) {
      if (!it->second.capacityReservationId.empty()) {
        terminating_[*id] = it->second.capacityReservationId;
      }
      facts_.erase(it);
    }
  }
  auto removed = providers_.instances.remove(*id);
  if (!removed && removed.error().is(core::Code::NotFound)) {
    std::string reservation;
    {
      std::lock_guard lock(mu_);
      auto it = terminating_.find(*id);
      if (it != terminating_.end()) {
        reservation = it->second;
        terminating_.erase(it);
      }
    }
    if (!reservation.empty()) {
      // As Karpenter: the instance is gone, so its reservation has room again until EC2 says.
      providers_.resolver.capacityReservations().markTerminated(reservation);
    }
  }
  return removed;
}

core::Result<InstanceTypes> AwsCloudProvider::instanceTypes(const api::karpenter::NodePool& pool) {
  const auto& tmpl = pool.spec.template_.spec;
  auto view = nodeClass(tmpl.nodeClassRef.name);
  if (!view) {
    return core::fail(view.error().wrap("NodePool " + pool.metadata.name));
  }
  const auto& kubelet = effectiveKubelet(view->nodeClass.spec, tmpl.kubelet);
  auto types = providers_.instanceTypes.list(view->nodeClass, kubelet, view->zones);
  if (types && allowsReserved(tmpl.requirements)) {
    addReservedOfferings(types->compatible, usableReservations(view->resolved), view->zones);
  }
  if (types) {
    addPlacementGroupLabels(types->compatible, view->resolved);
  }
  return types;
}

std::vector<UsableReservation> AwsCloudProvider::usableReservations(
    const ResolvedNodeClass& resolved) {
  std::vector<UsableReservation> out;
  for (const auto& r : resolved.capacityReservations) {
    out.push_back({r, providers_.resolver.capacityReservations().available(r.id)});
  }
  return out;
}

core::Result<std::vector<DriftCheck>> AwsCloudProvider::isDrifted(
    const api::karpenter::NodeClaim& claim) {
  const std::string& claimName = claim.metadata.name;
  if (claim.status.providerID.empty()) {
    return core::fail(
        core::Error::invalid("NodeClaim " + claimName + " has no provider ID: not launched"));
  }
  auto id = parseProviderID(claim.status.providerID);
  if (!id) {
    return core::fail(id.error().wrap("checking drift of " + claimName));
  }
  const std::string& nodeClassName = claim.spec.nodeClassRef.name;
  auto found = nodeClasses_(nodeClassName);
  if (!found) {
    return core::fail(
        found.error().wrap("checking drift of " + claimName + ": EC2NodeClass " + nodeClassName));
  }
  auto facts = instanceFacts(*id);
  if (!facts) {
    return core::fail(facts.error().wrap("checking drift of " + claimName));
  }
  const auto& selector = found->spec.placementGroupSelector;
  std::optional<sdk::PlacementGroup> group;
  if (selector) {
    // As Karpenter: a group that cannot be resolved now counts as none.
    group = providers_.resolver.placementGroup(*selector).value_or(std::nullopt);
  }
  const std::shared_ptr<const DriftEntry> entry = driftEntry(std::move(*found));
  std::vector<DriftCheck> checks = nodeClassDrift(claim, entry->context, *facts, hashPolicy_);
  auto label = claim.metadata.labels.find(labels::kPlacementGroupId);
  const std::string launchedIn = label == claim.metadata.labels.end() ? "" : label->second;
  if (selector || !launchedIn.empty()) {
    checks.push_back(placementGroupDrift(launchedIn, group ? group->groupId : ""));
  }
  return checks;
}

std::shared_ptr<const AwsCloudProvider::DriftEntry> AwsCloudProvider::driftEntry(
    api::karpenter::EC2NodeClass nodeClass) {
  const std::string name = nodeClass.metadata.name;
  const std::string version = nodeClass.metadata.resourceVersion;
  if (!version.empty()) {
    std::lock_guard lock(mu_);
    auto it = driftEntries_.find(name);
    if (it != driftEntries_.end() && it->second->nodeClass.metadata.resourceVersion == version &&
        it->second->nodeClass.metadata.uid == nodeClass.metadata.uid) {
      return it->second;
    }
  }
  // Built outside the lock: hashing a node class is the one costly step, done once per version.
  auto entry = std::make_shared<DriftEntry>();
  entry->nodeClass = std::move(nodeClass);
  entry->context = nodeClassDriftContext(entry->nodeClass, hashPolicy_);
  if (!version.empty()) {
    std::lock_guard lock(mu_);
    driftEntries_[name] = entry;
  }
  return entry;
}

core::Result<InstanceFacts> AwsCloudProvider::instanceFacts(const std::string& instanceId) {
  {
    std::lock_guard lock(mu_);
    auto it = facts_.find(instanceId);
    if (it != facts_.end()) {
      return it->second;
    }
  }
  auto instance = providers_.instances.get(instanceId);
  if (!instance) {
    return core::fail(instance.error());
  }
  remember(*instance);
  return InstanceFacts(*instance);
}

void AwsCloudProvider::remember(const sdk::Instance& instance) {
  InstanceFacts facts(instance);
  std::lock_guard lock(mu_);
  facts_.insert_or_assign(instance.instanceId, std::move(facts));
}

core::Result<std::vector<Machine>> AwsCloudProvider::garbageCollect(
    const std::set<std::string>& known, core::TimePoint now, std::chrono::seconds grace) {
  auto collected = providers_.instances.garbageCollect(known, now, grace);
  if (!collected) {
    return core::fail(collected.error());
  }
  std::vector<Machine> out;
  for (const auto& instance : *collected) {
    out.push_back(machineOf(instance, nullptr));
  }
  return out;
}

}  // namespace nodewright::cloud::aws
