#include "cloud/aws/nodeclass/status.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cloud/aws/networkinterface/slot.h"

namespace nodewright::cloud::aws::nodeclass {
namespace {

Verdict ok(const char* type) {
  // Karpenter's True conditions carry their type as the reason.
  return {type, "True", type, ""};
}

Verdict notFound(const char* type, const char* reason, const std::vector<std::string>& fields,
                 const char* what) {
  std::vector<std::string> parts;
  for (const std::string& field : fields) {
    parts.push_back(fmt::format("no {} match {}", what, field));
  }
  return {type, "False", reason, fmt::format("{}", fmt::join(parts, "; "))};
}

Verdict subnetsVerdict(const ResolvedNodeClass& r) {
  std::vector<std::string> empty;
  if (r.subnets.empty()) {
    empty.push_back("spec.subnetSelectorTerms");
  }
  for (size_t i = 0; i < r.interfaces.size(); ++i) {
    if (r.interfaces[i].ownSubnets && r.interfaces[i].subnets.empty()) {
      empty.push_back(fmt::format("spec.networkInterfaces[{}].subnetSelectorTerms", i));
    }
  }
  return empty.empty() ? ok(kSubnetsReady)
                       : notFound(kSubnetsReady, "SubnetsNotFound", empty, "subnets");
}

Verdict groupsVerdict(const ResolvedNodeClass& r) {
  std::vector<std::string> empty;
  if (r.securityGroups.empty()) {
    empty.push_back("spec.securityGroupSelectorTerms");
  }
  for (size_t i = 0; i < r.interfaces.size(); ++i) {
    if (r.interfaces[i].ownSecurityGroups && r.interfaces[i].securityGroups.empty()) {
      empty.push_back(fmt::format("spec.networkInterfaces[{}].securityGroupSelectorTerms", i));
    }
  }
  return empty.empty()
             ? ok(kSecurityGroupsReady)
             : notFound(kSecurityGroupsReady, "SecurityGroupsNotFound", empty, "security groups");
}

const api::Condition* find(const std::vector<api::Condition>& conditions, const std::string& type) {
  for (const api::Condition& c : conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<api::karpenter::NetworkInterfaceStatus> interfaceStatuses(
    const ResolvedNodeClass& resolved, const api::karpenter::EC2NodeClassSpec& spec) {
  std::vector<api::karpenter::NetworkInterfaceStatus> out;
  for (size_t i = 0; i < resolved.interfaces.size() && i < spec.networkInterfaces.size(); ++i) {
    const ResolvedInterface& r = resolved.interfaces[i];
    if (!r.ownSubnets && !r.ownSecurityGroups) {
      continue;
    }
    const api::karpenter::NetworkInterface& ni = spec.networkInterfaces[i];
    api::karpenter::NetworkInterfaceStatus status;
    // Numbered as the launch template numbers it (networkinterface/slot.h).
    const InterfaceSlot slot = slotOf(ni);
    status.networkCardIndex = slot.card;
    status.deviceIndex = slot.device;
    if (r.ownSubnets) {
      for (const sdk::Subnet& s : r.subnets) {
        status.subnets.push_back({s.subnetId, s.availabilityZone, s.availabilityZoneId});
      }
    }
    if (r.ownSecurityGroups) {
      for (const sdk::SecurityGroup& g : r.securityGroups) {
        status.securityGroups.push_back({g.groupId, g.groupName});
      }
    }
    out.push_back(std::move(status));
  }
  return out;
}

std::vector<Verdict> verdicts(const ResolvedNodeClass& resolved, const std::string& imageDetail,
                              const std::string& imageReason) {
  std::vector<Verdict> out;
  out.push_back(subnetsVerdict(resolved));
  out.push_back(groupsVerdict(resolved));
  if (resolved.images.empty() && !imageReason.empty()) {
    out.push_back({kAMIsReady, "False", imageReason, imageDetail});
  } else if (resolved.images.empty()) {
    Verdict v = notFound(kAMIsReady, "AMINotFound", {"spec.amiSelectorTerms"}, "AMIs");
    if (!imageDetail.empty()) {
      v.message += ": " + imageDetail;
    }
    out.push_back(std::move(v));
  } else {
    out.push_back(ok(kAMIsReady));
  }
  out.push_back(ok(kCapacityReservationsReady));
  const bool resolvedAll =
      std::all_of(out.begin(), out.end(), [](const Verdict& v) { return v.status == "True"; });
  if (!resolved.placementGroupSelector.empty() && !resolved.placementGroup) {
    // Karpenter v1.14's reason and words; validation waits for AMIs, subnets and groups only.
    out.push_back(
        {kPlacementGroupReady, "False", "PlacementGroupNotFound",
         fmt::format("Placement group \"{}\" not found", resolved.placementGroupSelector)});
  } else {
    out.push_back(ok(kPlacementGroupReady));
  }
  if (!resolvedAll) {
    // Karpenter's words: validation waits for what it validates.
    out.push_back({kValidationSucceeded, "Unknown", "DependenciesNotReady",
                   "Awaiting AMI, Security Group, and Subnet resolution"});
    return out;
  }
  std::vector<Problem> problems = validateNetwork(resolved);
  if (problems.empty()) {
    out.push_back(ok(kValidationSucceeded));
    return out;
  }
  std::vector<std::string> messages;
  for (const Problem& p : problems) {
    messages.push_back(p.message);
  }
  out.push_back({kValidationSucceeded, "False", problems.front().reason,
                 fmt::format("{}", fmt::join(messages, "; "))});
  return out;
}

void writeStatus(ResolvedNodeClass& resolved, const api::karpenter::EC2NodeClass& nodeClass,
                 const std::vector<Verdict>& verdicts, core::TimePoint now) {
  api::karpenter::EC2NodeClassStatus& status = resolved.status;
  status = {};
  for (const sdk::Subnet& s : resolved.subnets) {
    status.subnets.push_back({s.subnetId, s.availabilityZone, s.availabilityZoneId});
  }
  for (const sdk::SecurityGroup& g : resolved.securityGroups) {
    status.securityGroups.push_back({g.groupId, g.groupName});
  }
  status.capacityReservations = resolved.capacityReservations;
  for (const ResolvedImage& image : resolved.images) {
    status.amis.push_back({image.id, image.name, image.requirements, image.deprecated});
  }
  status.networkInterfaces = interfaceStatuses(resolved, nodeClass.spec);
  status.instanceProfile = nodeClass.status.instanceProfile;

  std::vector<Verdict> all = verdicts;
  std::vector<std::string> unready;
  for (const Verdict& v : verdicts) {
    if (v.status != "True") {
      unready.push_back(v.type + "=" + v.status);
    }
  }
  all.push_back(unready.empty() ? ok(kReady)
                                : Verdict{kReady, "False", "UnhealthyDependents",
                                          fmt::format("{}", fmt::join(unready, ", "))});
  // metav1.Time has whole seconds; a finer time would not survive a round trip.
  const core::Time transition(std::chrono::floor<std::chrono::seconds>(now));
  for (const Verdict& v : all) {
    api::Condition c;
    c.type = v.type;
    c.status = v.status;
    c.reason = v.reason;
    c.message = v.message;
    c.observedGeneration = nodeClass.metadata.generation;
    const api::Condition* before = find(nodeClass.status.conditions, v.type);
    c.lastTransitionTime =
        before && before->status == v.status ? before->lastTransitionTime : transition;
    status.conditions.push_back(std::move(c));
  }
}

}  // namespace nodewright::cloud::aws::nodeclass
