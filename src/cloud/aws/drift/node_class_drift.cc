#include "cloud/aws/drift/node_class_drift.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "api/labels.h"
#include "cloud/aws/drift/interface_layout.h"
#include "cloud/aws/drift/network_drift.h"
#include "cloud/aws/networkinterface/slot.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud::aws {

using api::karpenter::EC2NodeClass;
using api::karpenter::HashPolicy;
using api::karpenter::NodeClaim;

InstanceFacts::InstanceFacts(const sdk::Instance& instance)
    : instanceId(instance.instanceId),
      imageId(instance.imageId),
      subnetId(instance.subnetId),
      securityGroupIds(instance.securityGroupIds) {
  if (instance.capacityReservationPreference == "capacity-reservations-only") {
    capacityReservationId = instance.capacityReservationId;
  }
  networkInterfaces.reserve(instance.networkInterfaces.size());
  for (const sdk::InstanceNetworkInterface& ni : instance.networkInterfaces) {
    InterfaceFacts facts;
    facts.networkCardIndex = ni.networkCardIndex;
    facts.deviceIndex = ni.deviceIndex;
    facts.interfaceType = ni.interfaceType;
    facts.subnetId = ni.subnetId;
    facts.securityGroupIds = ni.groupIds;
    if (ni.networkCardIndex == 0 && ni.deviceIndex == 0) {
      // EC2's instance-level fields are the primary interface's; the interface is the source.
      if (!ni.subnetId.empty()) {
        subnetId = ni.subnetId;
      }
      if (!ni.groupIds.empty()) {
        securityGroupIds = ni.groupIds;
      }
    }
    networkInterfaces.push_back(std::move(facts));
  }
}

void IdSet::insert(const std::string& id) {
  if (ids.insert(id).second) {
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), id), id);
  }
}

NodeClassDriftContext nodeClassDriftContext(const EC2NodeClass& nodeClass,
                                            const HashPolicy& policy) {
  NodeClassDriftContext c;
  c.nodeClass = &nodeClass;
  c.hash = api::karpenter::nodeClassHash(nodeClass, policy);
  const auto& status = nodeClass.status;
  for (const auto& subnet : status.subnets) {
    c.subnets.insert(subnet.id);
  }
  for (const auto& reservation : status.capacityReservations) {
    c.capacityReservations.insert(reservation.id);
  }
  for (const auto& group : status.securityGroups) {
    c.securityGroups.insert(group.id);
  }
  const auto& specInterfaces = nodeClass.spec.networkInterfaces;
  for (size_t i = 0; i < specInterfaces.size(); ++i) {
    const api::karpenter::NetworkInterface& ni = specInterfaces[i];
    NodeClassDriftContext::Interface entry;
    entry.index = i;
    const InterfaceSlot slot = slotOf(ni);
    entry.networkCardIndex = slot.card;
    entry.deviceIndex = slot.device;
    entry.interfaceType = ni.interfaceType.empty() ? "interface" : ni.interfaceType;
    entry.ownSubnets = !ni.subnetSelectorTerms.empty();
    entry.ownSecurityGroups = !ni.securityGroupSelectorTerms.empty();
    for (const auto& resolved : status.networkInterfaces) {
      if (resolved.networkCardIndex != entry.networkCardIndex ||
          resolved.deviceIndex != entry.deviceIndex) {
        continue;
      }
      entry.resolved = true;
      for (const auto& subnet : resolved.subnets) {
        entry.subnets.insert(subnet.id);
      }
      for (const auto& group : resolved.securityGroups) {
        entry.securityGroups.insert(group.id);
      }
      break;
    }
    c.interfaces.push_back(std::move(entry));
  }
  c.amiKeys.push_back(labels::kArch);
  for (const auto& ami : status.amis) {
    NodeClassDriftContext::Image image;
    image.ami = &ami;
    for (const auto& requirement : ami.requirements) {
      auto key = std::find(c.amiKeys.begin(), c.amiKeys.end(), requirement.key);
      if (key == c.amiKeys.end()) {
        key = c.amiKeys.insert(c.amiKeys.end(), requirement.key);
      }
      image.requirements.push_back({static_cast<size_t>(key - c.amiKeys.begin()), &requirement});
    }
    c.images.push_back(std::move(image));
  }
  c.subnetsPass = fmt::format(" is among the {} resolved subnets", c.subnets.ids.size());
  c.groupsPass = fmt::format("exactly the resolved {}", fmt::join(c.securityGroups.sorted, ", "));
  return c;
}

namespace {

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// One requirement against the claim's label for its key (nullptr: absent), as api::matches
// evaluates it; the label was looked up once per claim for every AMI.
bool holds(const NodeClassDriftContext::Requirement& r, const std::string* label,
           const api::Labels& labels) {
  const api::karpenter::NodeSelectorRequirement& req = *r.requirement;
  if (req.operator_ == "In") {
    return label != nullptr && contains(req.values, *label);
  }
  if (req.operator_ == "NotIn") {
    return label == nullptr || !contains(req.values, *label);
  }
  if (req.operator_ == "Exists") {
    return label != nullptr;
  }
  if (req.operator_ == "DoesNotExist") {
    return label == nullptr;
  }
  return api::matches(req.key, req.operator_, req.values, labels);
}

std::string amiName(const api::karpenter::AMIStatus& ami) {
  return ami.name.empty() ? ami.id : fmt::format("{} ({})", ami.id, ami.name);
}

// Karpenter's amiDrifted: the image a launch would pick now for this node is the first of
// status.amis (newest first) whose requirements the node's labels meet.
DriftCheck amiDrift(const NodeClaim& claim, const NodeClassDriftContext& context,
                    const InstanceFacts& instance) {
  DriftCheck check;
  check.name = "AMI";
  const std::string& image = claim.status.imageID.empty() ? instance.imageId : claim.status.imageID;
  if (image.empty()) {
    check.detail = "the claim records no image: not compared";
    return check;
  }
  if (context.images.empty()) {
    check.detail = "status.amis is empty (not resolved yet): not compared";
    return check;
  }
  const api::Labels& labels = claim.metadata.labels;
  // The labels the requirements name, looked up once for every AMI; on the stack for the usual
  // few keys (architecture and accelerators).
  std::array<const std::string*, 8> onStack{};
  std::vector<const std::string*> spilled;
  const std::string** values = onStack.data();
  if (context.amiKeys.size() > onStack.size()) {
    spilled.resize(context.amiKeys.size());
    values = spilled.data();
  }
  for (size_t k = 0; k < context.amiKeys.size(); ++k) {
    auto it = labels.find(context.amiKeys[k]);
    values[k] = it == labels.end() ? nullptr : &it->second;
  }
  const std::string* arch = values[0];  // kubernetes.io/arch
  if (arch == nullptr) {
    check.detail =
        fmt::format("the claim has no {} label to match AMIs by: not compared", labels::kArch);
    return check;
  }
  const api::karpenter::AMIStatus* chosen = nullptr;
  for (const NodeClassDriftContext::Image& candidate : context.images) {
    const bool fits = std::all_of(candidate.requirements.begin(), candidate.requirements.end(),
                                  [&](const auto& r) { return holds(r, values[r.key], labels); });
    if (fits) {
      chosen = candidate.ami;
      break;
    }
  }
  if (chosen != nullptr && chosen->id == image) {
    check.detail = image + " is the AMI resolved for " + *arch + " nodes";
    return check;
  }
  check.drifted = true;
  check.reason = "AMIDrifted";
  api::FieldDiff diff;
  diff.path = "status.amis";
  diff.from = api::Json(image);
  if (chosen != nullptr) {
    diff.to = api::Json(chosen->id);
    check.detail = fmt::format("{} is no longer the AMI resolved for {} nodes: {} is", image, *arch,
                               amiName(*chosen));
  } else {
    std::vector<std::string> ids;
    for (const auto& candidate : context.images) {
      ids.push_back(candidate.ami->id);
    }
    check.detail = fmt::format("none of the resolved AMIs {} suits this {} node running {}",
                               fmt::join(ids, ", "), *arch, image);
  }
  check.changes.push_back(std::move(diff));
  return check;
}

DriftCheck reservationDrift(const NodeClassDriftContext& context, const InstanceFacts& instance) {
  DriftCheck check;
  check.name = "CapacityReservation";
  const std::string& id = instance.capacityReservationId;
  if (id.empty()) {
    check.detail = "not in a capacity reservation";
    return check;
  }
  if (context.capacityReservations.contains(id)) {
    check.detail = id + " is among the resolved capacity reservations";
    return check;
  }
  check.drifted = true;
  check.reason = "CapacityReservationDrift";
  api::FieldDiff diff;
  diff.path = "status.capacityReservations";
  diff.from = api::Json(id);
  check.changes.push_back(std::move(diff));
  check.detail = context.capacityReservations.empty()
                     ? id + " is no longer selected: no capacity reservation is"
                     : fmt::format("{} is not among {}", id,
                                   fmt::join(context.capacityReservations.sorted, ", "));
  return check;
}

}  // namespace

std::vector<DriftCheck> nodeClassDrift(const NodeClaim& claim, const NodeClassDriftContext& context,
                                       const InstanceFacts& instance, const HashPolicy& policy) {
  static const StampedHash keys{api::karpenter::kNodeClassHashAnnotation,
                                api::karpenter::kNodeClassHashVersionAnnotation,
                                api::karpenter::kNodeClassStaticAnnotation};
  std::vector<DriftCheck> checks;
  checks.reserve(6 + 2 * context.interfaces.size());
  checks.push_back(hashDrift("NodeClass", "NodeClassDrifted", claim.metadata.annotations, keys,
                             context.hash, context.nodeClass->spec, "spec", policy.version,
                             context.diffs.get()));
  checks.push_back(amiDrift(claim, context, instance));
  drift::appendNetworkDrift(context, instance, checks);
  if (!context.interfaces.empty()) {
    checks.push_back(drift::interfaceLayoutDrift(context, instance));
  }
  if (!context.nodeClass->spec.capacityReservationSelectorTerms.empty() ||
      !context.capacityReservations.empty() || !instance.capacityReservationId.empty()) {
    checks.push_back(reservationDrift(context, instance));
  }
  return checks;
}

std::vector<DriftCheck> nodeClassDrift(const NodeClaim& claim, const EC2NodeClass& nodeClass,
                                       const InstanceFacts& instance, const HashPolicy& policy) {
  return nodeClassDrift(claim, nodeClassDriftContext(nodeClass, policy), instance, policy);
}

}  // namespace nodewright::cloud::aws
