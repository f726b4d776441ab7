#include "emulators/ec2/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "emulators/ec2/capacity_reservations.h"
#include "emulators/ec2/fleet_pools.h"
#include "emulators/ec2/instance_builder.h"
#include "emulators/ec2/launch_validation.h"
#include "emulators/ec2/placement_groups.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

// EC2 keeps terminated instances visible for about an hour.
constexpr std::chrono::hours kTerminatedVisible{1};

aws::ApiError toApiError(const LaunchError& e) {
  return {e.code, e.message};
}

std::optional<Resource> getLive(ResourceStore& store, std::string_view type, std::string_view id) {
  auto r = store.get(type, id);
  if (!r || !r->live()) {
    return std::nullopt;
  }
  return std::move(*r);
}

SubnetRef subnetRef(ResourceStore& store, const std::string& id) {
  SubnetRef ref;
  ref.id = id;
  auto r = getLive(store, kind::kSubnet, id);
  const auto* s = r ? r->as<SubnetAttributes>() : nullptr;
  if (s == nullptr) {
    ref.exists = false;
    return ref;
  }
  ref.vpcId = s->vpcId;
  ref.availableIps = s->availableIps;
  ref.zone = s->zone;
  return ref;
}

std::pair<SecurityGroupRef, GroupRef> groupRef(ResourceStore& store, const std::string& id) {
  auto r = getLive(store, kind::kSecurityGroup, id);
  const auto* g = r ? r->as<SecurityGroupAttributes>() : nullptr;
  if (g == nullptr) {
    return {SecurityGroupRef{id, "", false}, GroupRef{id, ""}};
  }
  return {SecurityGroupRef{id, g->vpcId, true}, GroupRef{id, g->name}};
}

// The VPC's group named "default", which EC2 uses when a launch names none.
std::vector<std::string> defaultGroup(ResourceStore& store, const std::string& vpcId) {
  auto found = store.list(kind::kSecurityGroup, [&](const Resource& r) {
    const auto* g = r.as<SecurityGroupAttributes>();
    return r.live() && g != nullptr && g->vpcId == vpcId && g->name == "default";
  });
  return found.empty() ? std::vector<std::string>{} : std::vector<std::string>{found.front().id};
}

// A subnet of a default VPC (in `zone` when set), as EC2 picks one for a launch without any.
aws::ApiResult<std::string> defaultSubnet(ResourceStore& store,
                                          const std::optional<std::string>& zone) {
  std::set<std::string> defaultVpcs;
  for (const Resource& vpc : store.list(kind::kVpc)) {
    const auto* v = vpc.as<VpcAttributes>();
    if (vpc.live() && v != nullptr && v->isDefault) {
      defaultVpcs.insert(vpc.id);
    }
  }
  // GUESS: code and wording, as EC2 answers accounts without a default VPC.
  if (defaultVpcs.empty()) {
    return aws::apiFail("VPCIdNotSpecified", "No default VPC for this user");
  }
  auto subnets = store.list(kind::kSubnet, [&](const Resource& r) {
    const auto* s = r.as<SubnetAttributes>();
    return r.live() && s != nullptr && defaultVpcs.contains(s->vpcId) &&
           (!zone || s->zone == *zone);
  });
  // GUESS: code and wording.
  if (subnets.empty()) {
    return aws::apiFail("MissingInput",
                        "No subnets found for the default VPC. Please specify a subnet.");
  }
  return subnets.front().id;
}

// The request resolved against the store: what validateLaunch() checks, plus the names and
// attributes the instances are built from.
struct Resolved {
  LaunchRequest request;
  Resource image;
  Resource subnet;  // the launch's (primary) subnet
  std::vector<GroupRef> groups;
  std::vector<std::vector<GroupRef>> interfaceGroups;  // per request.networkInterfaces
};

aws::ApiResult<std::string> chooseSubnet(ResourceStore& store, const LaunchPlan& plan) {
  const LaunchTemplateData& d = plan.data;
  if (!plan.subnetId.empty()) {
    return plan.subnetId;
  }
  for (const NetworkInterfaceRequest& ni : d.networkInterfaces) {
    if (ni.deviceIndex.value_or(0) == 0 && ni.networkCardIndex.value_or(0) == 0 && ni.subnetId) {
      return *ni.subnetId;
    }
  }
  for (const NetworkInterfaceRequest& ni : d.networkInterfaces) {
    if (ni.subnetId) {
      return *ni.subnetId;
    }
  }
  return defaultSubnet(store, d.availabilityZone);
}

aws::ApiResult<void> checkCombinations(const LaunchPlan& plan) {
  const LaunchTemplateData& d = plan.data;
  if (d.networkInterfaces.empty()) {
    return {};
  }
  // CONFIRMED wording (EC2 RunInstances); fleets put their override subnet on the interfaces.
  if (!d.securityGroupIds.empty()) {
    return aws::apiFail("InvalidParameterCombination",
                        "Network interfaces and an instance-level security groups may not be "
                        "specified on the same request");
  }
  if (!plan.subnetId.empty() && plan.fleetId.empty()) {
    return aws::apiFail("InvalidParameterCombination",
                        "Network interfaces and an instance-level subnet ID may not be specified "
                        "on the same request");
  }
  return {};
}

NetworkInterfaceSpec interfaceSpec(const NetworkInterfaceRequest& ni) {
  NetworkInterfaceSpec spec;
  spec.deviceIndex = static_cast<int>(ni.deviceIndex.value_or(0));
  spec.networkCardIndex = static_cast<int>(ni.networkCardIndex.value_or(0));
  spec.interfaceType = ni.interfaceType.value_or("interface");
  spec.associatePublicIpAddress = ni.associatePublicIpAddress;
  spec.associateCarrierIpAddress = ni.associateCarrierIpAddress;
  spec.ipv4PrefixCount = static_cast<int>(ni.ipv4PrefixCount.value_or(0));
  spec.ipv6PrefixCount = static_cast<int>(ni.ipv6PrefixCount.value_or(0));
  spec.ipv4AddressCount = static_cast<int>(ni.secondaryPrivateIpAddressCount.value_or(0));
  spec.ipv6AddressCount = static_cast<int>(ni.ipv6AddressCount.value_or(0));
  spec.deleteOnTermination = ni.deleteOnTermination.value_or(true);
  return spec;
}

aws::ApiResult<Resolved> resolve(ResourceStore& store, const LaunchPlan& plan) {
  const LaunchTemplateData& d = plan.data;
  if (auto ok = checkCombinations(plan); !ok) {
    return tl::unexpected(ok.error());
  }
  // GUESS: EC2 defaults a missing type to m1.small; nothing Karpenter sends relies on it.
  if (!d.instanceType) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter InstanceType");
  }
  // GUESS: code as for other missing parameters.
  if (!d.imageId) {
    return aws::apiFail("MissingParameter", "The request must contain the parameter ImageId");
  }
  // CONFIRMED: hashicorp/terraform#22172.
  if (!d.imageId->starts_with("ami-")) {
    return aws::apiFail("InvalidAMIID.Malformed",
                        fmt::format("Invalid id: \"{}\" (expecting \"ami-...\")", *d.imageId));
  }
  Resolved out;
  LaunchRequest& req = out.request;
  req.instanceType = *d.instanceType;
  req.image.id = *d.imageId;
  if (auto image = getLive(store, kind::kImage, *d.imageId);
      image && image->as<ImageAttributes>()) {
    req.image.architecture = image->as<ImageAttributes>()->architecture;
    out.image = std::move(*image);
  } else {
    req.image.exists = false;
  }
  auto subnetId = chooseSubnet(store, plan);
  if (!subnetId) {
    return tl::unexpected(subnetId.error());
  }
  req.subnet = subnetRef(store, *subnetId);
  if (auto subnet = getLive(store, kind::kSubnet, *subnetId)) {
    out.subnet = std::move(*subnet);
  }
  // GUESS: wording; EC2 rejects a zone that contradicts the subnet's.
  if (req.subnet.exists && d.availabilityZone && *d.availabilityZone != req.subnet.zone) {
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("Value ({}) for parameter availabilityZone is invalid. Subnet "
                                    "'{}' is in the availability zone {}",
                                    *d.availabilityZone, req.subnet.id, req.subnet.zone));
  }
  std::vector<std::string> groupIds = d.securityGroupIds;
  if (groupIds.empty() && req.subnet.exists) {
    groupIds = defaultGroup(store, req.subnet.vpcId);
  }
  for (const std::string& id : groupIds) {
    auto [ref, name] = groupRef(store, id);
    req.securityGroups.push_back(ref);
    out.groups.push_back(name);
  }
  for (const NetworkInterfaceRequest& ni : d.networkInterfaces) {
    NetworkInterfaceSpec spec = interfaceSpec(ni);
    if (ni.subnetId && *ni.subnetId != req.subnet.id) {
      spec.subnet = subnetRef(store, *ni.subnetId);
    }
    std::vector<GroupRef> names;
    for (const std::string& id : ni.groups) {
      auto [ref, name] = groupRef(store, id);
      spec.groups.push_back(ref);
      names.push_back(name);
    }
    req.networkInterfaces.push_back(std::move(spec));
    out.interfaceGroups.push_back(names.empty() ? out.groups : names);
  }
  req.count = static_cast<int>(plan.minCount);
  return out;
}

// The interfaces every instance gets: the request's, or the implied primary one.
std::vector<NetworkInterfaceSpec> effectiveInterfaces(const LaunchRequest& req) {
  return req.networkInterfaces.empty() ? std::vector<NetworkInterfaceSpec>{NetworkInterfaceSpec{}}
                                       : req.networkInterfaces;
}

// Addresses per subnet, for [minCount, maxCount] instances; all or nothing across subnets.
struct Grants {
  int64_t count = 0;
  std::map<std::string, SubnetGrant> bySubnet;
  std::map<std::string, std::vector<size_t>> interfacesBySubnet;  // indices into interfaces
};

void releaseGrants(ResourceStore& store, const Grants& grants) {
  for (const auto& [id, grant] : grants.bySubnet) {
    for (const AddressLease& lease : grant.leases) {
      releaseAddresses(store, lease);
    }
  }
}

aws::ApiResult<Grants> takeAllAddresses(ResourceStore& store, const LaunchRequest& req,
                                        const std::vector<NetworkInterfaceSpec>& interfaces,
                                        int64_t minCount, int64_t maxCount) {
  Grants grants;
  std::map<std::string, std::vector<InterfaceNeed>> needs;
  std::vector<std::string> order;  // the launch's subnet first, so it decides the count
  for (size_t i = 0; i < interfaces.size(); ++i) {
    const NetworkInterfaceSpec& spec = interfaces[i];
    const std::string& subnet = spec.subnet ? spec.subnet->id : req.subnet.id;
    if (!needs.contains(subnet)) {
      order.push_back(subnet);
    }
    InterfaceNeed need;
    need.singles = spec.interfaceType == "efa-only" ? 0 : 1 + spec.ipv4AddressCount;
    need.prefixes = spec.interfaceType == "efa-only" ? 0 : spec.ipv4PrefixCount;
    needs[subnet].push_back(need);
    grants.interfacesBySubnet[subnet].push_back(i);
  }
  std::stable_partition(order.begin(), order.end(),
                        [&](const std::string& id) { return id == req.subnet.id; });
  grants.count = maxCount;
  for (const std::string& subnet : order) {
    const int64_t min = grants.bySubnet.empty() ? minCount : grants.count;
    auto grant = takeAddresses(store, subnet, needs[subnet], min, grants.count);
    if (!grant) {
      releaseGrants(store, grants);
      return tl::unexpected(grant.error());
    }
    grants.count = static_cast<int64_t>(grant->instances.size());
    grants.bySubnet.emplace(subnet, std::move(*grant));
  }
  return grants;
}

// The addresses instance `index` got, per interface, and its leases.
InstanceAddressing addressingOf(const Grants& grants, size_t interfaces, int64_t index) {
  InstanceAddressing out;
  out.interfaces.resize(interfaces);
  for (const auto& [subnet, grant] : grants.bySubnet) {
    const auto& slots = grants.interfacesBySubnet.at(subnet);
    const auto& got = grant.instances[static_cast<size_t>(index)];
    for (size_t k = 0; k < slots.size(); ++k) {
      out.interfaces[slots[k]] = {subnet, grant.cidrBlock, got[k]};
    }
    out.leases.push_back(grant.leases[static_cast<size_t>(index)]);
  }
  return out;
}

std::optional<LaunchOutcome> replay(ResourceStore& store, const std::string& token) {
  if (token.empty()) {
    return std::nullopt;
  }
  auto reservation = store.findByClientToken(kind::kReservation, token);
  if (!reservation) {
    return std::nullopt;
  }
  return LaunchOutcome{reservation->id, reservationInstances(store, *reservation), false};
}

void retireReservationIfDone(ResourceStore& store, const std::string& reservationId,
                             std::chrono::microseconds keepFor) {
  auto reservation = store.get(kind::kReservation, reservationId);
  if (!reservation || !reservation->live()) {
    return;
  }
  core::TimePoint last = reservation->created;
  for (const Resource& r : reservationInstances(store, *reservation)) {
    if (r.state == instance_state::kPending || r.state == instance_state::kRunning) {
      return;
    }
    if (r.next) {
      last = std::max(last, r.next->at);
    }
  }
  // The reservation (and its client token) lives as long as its last instance stays visible.
  (void)store.transition(kind::kReservation, reservationId, "retiring",
                         Transition{.to = "retired", .at = last, .keepFor = keepFor});
}

}  // namespace

// CONFIRMED: terraform-provider-aws#1496 quoting EC2 (on-demand); osbuild-composer#4507 and
// cortexlabs/cortex#1258 (spot).
aws::ApiError insufficientCapacityError(const World& world, const std::string& instanceType,
                                        const std::string& zone, const std::string& lifecycle) {
  if (lifecycle == "spot") {
    return {"InsufficientInstanceCapacity",
            "There is no Spot capacity available that matches your request."};
  }
  std::vector<std::string> others;
  for (const ZoneConfig& z : world.zones) {
    if (z.name != zone) {
      others.push_back(z.name);
    }
  }
  return {"InsufficientInstanceCapacity",
          fmt::format("We currently do not have sufficient {0} capacity in the Availability Zone "
                      "you requested ({1}). Our system will be working on provisioning additional "
                      "capacity. You can currently get {0} capacity by not specifying an "
                      "Availability Zone in your request or choosing {2}.",
                      instanceType, zone, fmt::join(others, ", "))};
}

aws::ApiResult<LaunchOutcome> launchInstances(ActionContext& ctx, const LaunchPlan& plan) {
  ResourceStore& store = ctx.engine.store();
  if (auto earlier = replay(store, plan.clientToken)) {
    return std::move(*earlier);
  }
  auto resolved = resolve(store, plan);
  if (!resolved) {
    return tl::unexpected(resolved.error());
  }
  const LaunchRequest& req = resolved->request;
  if (auto error = validateLaunch(req, ctx.catalog)) {
    return tl::unexpected(toApiError(*error));
  }
  auto placement = placementOf(ctx, plan.data);
  if (!placement) {
    return tl::unexpected(placement.error());
  }
  auto reserved = takeReservedCapacity(ctx, plan.data, req.instanceType, req.subnet.zone,
                                       plan.minCount, plan.maxCount);
  if (!reserved) {
    return tl::unexpected(reserved.error());
  }
  const CapacityKey pool{req.instanceType, req.subnet.zone, plan.lifecycle};
  const int64_t granted = *reserved ? (*reserved)->count
                                    : ctx.engine.faults().takeCapacity(
                                          pool, plan.maxCount, std::max<int64_t>(plan.minCount, 1));
  auto giveBack = [&](int64_t count) {
    if (*reserved) {
      returnReservedCapacity(store, (*reserved)->id, count);
    } else {
      ctx.engine.faults().returnCapacity(pool, count);
    }
  };
  if (granted < plan.minCount || granted == 0) {
    return tl::unexpected(
        insufficientCapacityError(ctx.world, req.instanceType, req.subnet.zone, plan.lifecycle));
  }
  const std::vector<NetworkInterfaceSpec> interfaces = effectiveInterfaces(req);
  auto grants = takeAllAddresses(store, req, interfaces, plan.minCount, granted);
  if (!grants) {
    giveBack(granted);
    return tl::unexpected(grants.error());
  }
  giveBack(granted - grants->count);

  NewResource reservation;
  reservation.type = std::string(kind::kReservation);
  reservation.idPrefix = "r";
  reservation.state = "active";
  reservation.clientToken = plan.clientToken;
  auto created = store.create(std::move(reservation));
  if (!created || !created->created) {
    // A concurrent request with the same token won: its reservation is the answer.
    releaseGrants(store, *grants);
    giveBack(grants->count);
    if (!created) {
      return aws::apiFail("InternalError", created.error().message(), 500);
    }
    return LaunchOutcome{created->resource.id, reservationInstances(store, created->resource),
                         false};
  }

  LaunchOutcome outcome;
  outcome.reservationId = created->resource.id;
  LaunchPlan placed = plan;
  if (*placement) {
    placed.placementGroupId = (*placement)->groupId;
    placed.placementGroupName = (*placement)->groupName;
    placed.partitionNumber = (*placement)->partitionNumber;
  }
  if (*reserved) {
    placed.capacityReservationId = (*reserved)->id;
    if (!(*reserved)->lifecycle.empty()) {
      placed.lifecycle = (*reserved)->lifecycle;
    }
  }
  InstanceBuilder builder(ctx, placed, resolved->image, resolved->subnet, resolved->groups,
                          resolved->interfaceGroups, interfaces, outcome.reservationId);
  ReservationAttributes attrs;
  attrs.ownerId = ctx.world.accountId;
  for (int64_t i = 0; i < grants->count; ++i) {
    auto instance = store.create(builder.build(i, addressingOf(*grants, interfaces.size(), i)));
    if (!instance) {
      return aws::apiFail("InternalError", instance.error().message(), 500);
    }
    attrs.instanceIds.push_back(instance->resource.id);
    outcome.instances.push_back(std::move(instance->resource));
  }
  (void)store.update(kind::kReservation, outcome.reservationId, [&](Resource& r) {
    r.attributes = std::make_shared<const ReservationAttributes>(attrs);
  });
  return outcome;
}

std::vector<Resource> reservationInstances(ResourceStore& store, const Resource& reservation) {
  std::vector<Resource> out;
  const auto* attrs = reservation.as<ReservationAttributes>();
  if (attrs == nullptr) {
    return out;
  }
  for (const std::string& id : attrs->instanceIds) {
    if (auto r = store.get(kind::kInstance, id)) {
      out.push_back(std::move(*r));
    }
  }
  return out;
}

std::vector<TerminateResult> terminateInstances(ActionContext& ctx,
                                                const std::vector<std::string>& ids) {
  ResourceStore& store = ctx.engine.store();
  const auto keepFor = ctx.engine.time().toReal(kTerminatedVisible);
  std::vector<TerminateResult> out;
  std::set<std::string> reservations;
  for (const std::string& id : ids) {
    auto current = store.get(kind::kInstance, id);
    if (!current) {
      continue;
    }
    const std::string previous = current->state;
    if (previous == instance_state::kPending || previous == instance_state::kRunning) {
      auto moved = store.transition(kind::kInstance, id, std::string(instance_state::kShuttingDown),
                                    Transition{.to = std::string(instance_state::kTerminated),
                                               .at = ctx.engine.dueAfter(kTerminateOp),
                                               .keepFor = keepFor});
      if (moved) {
        current = std::move(moved);
      }
    }
    // Exactly one termination gives the addresses back, however many race.
    std::vector<AddressLease> leases;
    std::string capacityReservationId;
    (void)store.update(kind::kInstance, id, [&](Resource& r) {
      const auto* a = r.as<InstanceAttributes>();
      if (a == nullptr || a->leasesReleased) {
        return;
      }
      auto next = std::make_shared<InstanceAttributes>(*a);
      leases = std::move(next->leases);
      capacityReservationId = next->capacityReservationId;
      next->leases.clear();
      next->leasesReleased = true;
      r.attributes = std::move(next);
    });
    for (const AddressLease& lease : leases) {
      releaseAddresses(store, lease);
    }
    if (!capacityReservationId.empty()) {
      returnReservedCapacity(store, capacityReservationId, 1);
    }
    if (const auto* a = current->as<InstanceAttributes>()) {
      reservations.insert(a->reservationId);
    }
    out.push_back({std::move(*current), previous});
  }
  for (const std::string& reservationId : reservations) {
    retireReservationIfDone(store, reservationId, keepFor);
  }
  return out;
}

}  // namespace nodewright::emulators::ec2
