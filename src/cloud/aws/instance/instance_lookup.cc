#include <fmt/format.h>

#include <algorithm>

#include "aws/error_class.h"
#include "cloud/aws/instance/instance_provider.h"
#include "cloud/aws/launch/template_data.h"
#include "cloud/well_known_labels.h"
#include "core/log.h"

// The InstanceProvider's reads and deletes: batched DescribeInstances and TerminateInstances,
// list by ownership tag, and garbage collection. create() is in instance_provider.cc.
namespace nodewright::cloud::aws {
namespace {

constexpr std::string_view kProviderPrefix = "aws:///";
constexpr std::string_view kTerminated = "terminated";
constexpr std::string_view kShuttingDown = "shutting-down";
constexpr size_t kMaxIdsPerCall = 500;

bool notFound(const sdk::ApiError& e) {
  return sdk::classify(e) == sdk::ErrorClass::NotFound;
}

template <class T>
void failAll(std::map<std::string, core::Result<T>>& out, const std::vector<std::string>& ids,
             const sdk::ApiError& error) {
  for (const std::string& id : ids) {
    out.emplace(id, core::fail(sdk::toCoreError(error)));
  }
}

}  // namespace

std::string providerID(const std::string& zone, const std::string& instanceId) {
  return fmt::format("{}{}/{}", kProviderPrefix, zone, instanceId);
}

core::Result<std::string> parseProviderID(std::string_view providerID) {
  if (providerID.starts_with(kProviderPrefix)) {
    const std::string_view rest = providerID.substr(kProviderPrefix.size());
    const std::string_view id = rest.substr(rest.find_last_of('/') + 1);
    if (id.starts_with("i-") && id.size() > 2) {
      return std::string(id);
    }
  }
  return core::fail(core::Error::invalid(
      fmt::format("provider ID \"{}\" is not aws:///<zone>/<instance-id>", providerID)));
}

Machine toMachine(const sdk::Instance& instance) {
  auto tag = [&](const char* key) {
    auto it = instance.tags.find(key);
    return it == instance.tags.end() ? std::string() : it->second;
  };
  Machine m;
  m.providerID = providerID(instance.availabilityZone, instance.instanceId);
  m.nodeClaimName = tag(kTagNodeClaim);
  m.nodePoolName = tag(kLabelNodePool);
  m.instanceType = instance.instanceType;
  m.zone = instance.availabilityZone;
  // Reserved only when launched to run in the reservation, as Karpenter reads it: an instance
  // that took an open reservation on its own is on-demand.
  const bool reserved = !instance.capacityReservationId.empty() &&
                        instance.capacityReservationPreference == "capacity-reservations-only";
  m.capacityType = instance.lifecycle == "spot" ? kCapacityTypeSpot
                   : reserved                   ? kCapacityTypeReserved
                                                : kCapacityTypeOnDemand;
  m.imageID = instance.imageId;
  m.state = instance.state;
  m.launchTime = instance.launchTime;
  m.labels = {{"node.kubernetes.io/instance-type", m.instanceType},
              {kLabelZone, m.zone},
              {kLabelCapacityType, m.capacityType},
              // As Karpenter: the instance's tenancy, default when EC2 reports none.
              {labels::kInstanceTenancy, instance.tenancy.empty() ? "default" : instance.tenancy}};
  if (!instance.placementGroupId.empty()) {
    // As Karpenter's NodeClaims: the group, and in a partition group the instance's partition
    // (its registration hook reads it from DescribeInstances).
    m.labels[labels::kPlacementGroupId] = instance.placementGroupId;
    if (instance.partitionNumber) {
      m.labels[labels::kPlacementGroupPartition] = std::to_string(*instance.partitionNumber);
    }
  }
  if (instance.platform == "windows") {
    // The OS its kubelet reports, known before any instance type is looked up (list, get).
    m.labels[labels::kOs] = "windows";
  }
  if (reserved) {
    m.labels[kLabelCapacityReservationID] = instance.capacityReservationId;
    m.labels[kLabelCapacityReservationType] =
        instance.lifecycle == "capacity-block" ? "capacity-block" : "default";
    m.labels[kLabelCapacityReservationInterruptible] =
        instance.lifecycle == "interruptible-capacity-reservation" ? "true" : "false";
  }
  return m;
}

core::Result<sdk::Instance> InstanceProvider::get(const std::string& instanceId) {
  return describe_.call(instanceId);
}

core::Status InstanceProvider::remove(const std::string& instanceId) {
  auto change = terminate_.call(instanceId);
  if (!change) {
    return core::fail(change.error());
  }
  core::logInfo("aws: terminating instance",
                {{"instance-id", instanceId}, {"previous-state", change->previousState}});
  return core::ok();
}

core::Result<std::vector<sdk::Instance>> InstanceProvider::list() {
  auto found = ec2_.describeInstances(
      {}, {{"tag:" + clusterTagKey(options_.clusterName), {"owned"}},
           {"tag-key", {kLabelNodePool}},
           {"instance-state-name",
            {"pending", "running", "stopping", "stopped", std::string(kShuttingDown)}}});
  if (!found) {
    return core::fail(sdk::toCoreError(found.error()).wrap("listing instances"));
  }
  // Filters are the peer's to apply; a terminated instance must never be listed as live.
  std::erase_if(*found, [](const sdk::Instance& i) { return i.state == kTerminated; });
  return std::move(*found);
}

core::Result<std::vector<sdk::Instance>> InstanceProvider::garbageCollect(
    const std::set<std::string>& known, core::TimePoint now, std::chrono::seconds grace) {
  std::set<std::string> knownIds;
  for (const std::string& id : known) {
    if (auto parsed = parseProviderID(id)) {
      knownIds.insert(*parsed);
    }
  }
  auto instances = list();
  if (!instances) {
    return core::fail(instances.error());
  }
  std::vector<sdk::Instance> orphans;
  for (const sdk::Instance& i : *instances) {
    if (!knownIds.contains(i.instanceId) && i.state != kShuttingDown &&
        i.launchTime + grace <= now) {
      orphans.push_back(i);
    }
  }
  std::vector<sdk::Instance> terminated;
  for (size_t begin = 0; begin < orphans.size(); begin += kMaxIdsPerCall) {
    const size_t end = std::min(orphans.size(), begin + kMaxIdsPerCall);
    std::vector<std::string> ids;
    for (size_t k = begin; k < end; ++k) {
      ids.push_back(orphans[k].instanceId);
    }
    // The collector has its whole batch at hand: no window to wait out.
    auto answers = terminateBatch(ids);
    for (size_t k = begin; k < end; ++k) {
      auto it = answers.find(orphans[k].instanceId);
      if (it != answers.end() && it->second) {
        core::logInfo("aws: garbage-collected instance", {{"instance-id", orphans[k].instanceId}});
        terminated.push_back(orphans[k]);
      } else if (it != answers.end() && !it->second.error().is(core::Code::NotFound)) {
        return core::fail(it->second.error().wrap("terminating " + orphans[k].instanceId));
      }
    }
  }
  return terminated;
}

std::map<std::string, core::Result<sdk::Instance>> InstanceProvider::describeBatch(
    const std::vector<std::string>& ids) {
  std::map<std::string, core::Result<sdk::Instance>> out;
  auto keep = [&](std::vector<sdk::Instance>& found) {
    for (sdk::Instance& i : found) {
      if (i.state != kTerminated) {
        const std::string id = i.instanceId;
        out.emplace(id, std::move(i));
      }
    }
  };
  auto found = ec2_.describeInstances(ids);
  if (found) {
    keep(*found);
  } else if (notFound(found.error()) && ids.size() > 1) {
    // One unknown id fails the whole call; ask for each so the others still get answers.
    for (const std::string& id : ids) {
      auto one = ec2_.describeInstances({id});
      if (one) {
        keep(*one);
      } else if (!notFound(one.error())) {
        out.emplace(id, core::fail(sdk::toCoreError(one.error())));
      }
    }
  } else if (!notFound(found.error())) {
    failAll(out, ids, found.error());
  }
  return out;
}

std::map<std::string, core::Result<sdk::InstanceStateChange>> InstanceProvider::terminateBatch(
    const std::vector<std::string>& ids) {
  std::map<std::string, core::Result<sdk::InstanceStateChange>> out;
  auto keep = [&](std::vector<sdk::InstanceStateChange>& changes) {
    for (sdk::InstanceStateChange& c : changes) {
      const std::string id = c.instanceId;
      if (c.previousState == kTerminated) {
        out.emplace(id, core::fail(core::Error::notFound(id + " is already terminated")));
      } else {
        out.emplace(id, std::move(c));
      }
    }
  };
  auto changes = ec2_.terminateInstances(ids);
  if (changes) {
    keep(*changes);
  } else if (notFound(changes.error()) && ids.size() > 1) {
    for (const std::string& id : ids) {
      auto one = ec2_.terminateInstances({id});
      if (one) {
        keep(*one);
      } else if (!notFound(one.error())) {
        out.emplace(id, core::fail(sdk::toCoreError(one.error())));
      }
    }
  } else if (!notFound(changes.error())) {
    failAll(out, ids, changes.error());
  }
  return out;
}

}  // namespace nodewright::cloud::aws
