#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"
#include "cloud/drift.h"

// The AWS half of drift (seed 002, seed 001 for network interfaces): a NodeClaim against its
// EC2NodeClass. Static fields compare by the hash stamped at launch; the selectors compare by
// what they resolve to now (the node class's status) against what the instance runs with.
// Missing data (a status not resolved yet, a claim without the labels to match an AMI) never
// drifts a node: it passes with a detail saying what was not compared.
namespace nodewright::cloud::aws {

// What drift needs of an instance, cheap to keep for every instance of the cluster.
struct InterfaceFacts {
  int networkCardIndex = 0;
  int deviceIndex = 0;
  std::string interfaceType;  // EC2's word: "interface", "efa", "efa-only", "trunk", ...
  std::string subnetId;
  std::vector<std::string> securityGroupIds;
};

struct InstanceFacts {
  std::string instanceId;
  std::string imageId;
  // The primary interface's (network card 0, device 0), as EC2 reports them for the instance.
  std::string subnetId;
  std::vector<std::string> securityGroupIds;
  // Empty when EC2 did not report them; the primary is then the one above.
  std::vector<InterfaceFacts> networkInterfaces;
  // The capacity reservation a reserved instance runs in (launched with the preference
  // capacity-reservations-only); empty otherwise, as for an instance that used an open one.
  std::string capacityReservationId;

  InstanceFacts() = default;
  explicit InstanceFacts(const sdk::Instance& instance);
};

// Resolved ids, for lookups and, sorted, for messages.
struct IdSet {
  std::unordered_set<std::string> ids;
  std::vector<std::string> sorted;

  void insert(const std::string& id);
  bool contains(const std::string& id) const { return ids.contains(id); }
  bool empty() const { return ids.empty(); }
};

// What the checks need of a node class, computed once per node class (and resourceVersion) so
// that checking many claims costs a few lookups each: the current hash, the resolved ids as
// sets, each network interface's key and resolution, the AMIs' requirements by label index.
// Points into the node class, which must outlive it.
struct NodeClassDriftContext {
  struct Interface {
    size_t index = 0;  // in spec.networkInterfaces
    int networkCardIndex = 0;
    int deviceIndex = 0;  // unset: 0, as the launch template numbers it (slot.h)
    std::string interfaceType;  // "interface" when the spec leaves it empty
    bool ownSubnets = false;
    bool ownSecurityGroups = false;
    bool resolved = false;  // status.networkInterfaces has its entry
    IdSet subnets;
    IdSet securityGroups;
  };
  struct Requirement {
    size_t key = 0;  // in amiKeys
    const api::karpenter::NodeSelectorRequirement* requirement = nullptr;
  };
  struct Image {
    const api::karpenter::AMIStatus* ami = nullptr;
    std::vector<Requirement> requirements;
  };

  const api::karpenter::EC2NodeClass* nodeClass = nullptr;
  std::string hash;
  // The static fields drifted claims differ in, by the snapshot they were stamped with.
  std::shared_ptr<DiffMemo> diffs = std::make_shared<DiffMemo>();
  IdSet subnets;
  IdSet securityGroups;
  IdSet capacityReservations;
  std::vector<Interface> interfaces;  // every spec.networkInterfaces entry, in spec order
  // The label keys the AMIs' requirements name; kubernetes.io/arch first.
  std::vector<std::string> amiKeys;
  std::vector<Image> images;  // status.amis, in order (newest first)
  // The passing details that do not depend on the claim, written once.
  std::string subnetsPass;  // " is among the 3 resolved subnets"
  std::string groupsPass;   // "exactly the resolved sg-1, sg-2"
};

NodeClassDriftContext nodeClassDriftContext(const api::karpenter::EC2NodeClass& nodeClass,
                                            const api::karpenter::HashPolicy& policy);

// The checks, all of them that apply and in this order, so `drift explain` lists each with pass or
// fail: "NodeClass" (NodeClassDrifted), "AMI" (AMIDrifted), "Subnet" (SubnetDrifted),
// "SecurityGroups" (SecurityGroupDrifted), then for each network interface with selectors of
// its own "NetworkInterfaces[i].Subnet" and/or "NetworkInterfaces[i].SecurityGroups", then,
// when the node class lists network interfaces, "NetworkInterfaces" (NetworkInterfaceDrifted):
// the instance's live interfaces against the list (drift/interface_layout.h), and last, when the
// node class selects capacity reservations or the instance runs in one, "CapacityReservation"
// (CapacityReservationDrift): a reserved instance's reservation is still among
// status.capacityReservations (Karpenter's: checked on the instance, not by offerings, so a
// reserved node that may fall back to on-demand does not drift early).
//
// AMI: the claim's image must be the first of status.amis whose requirements its labels meet,
// the one a launch would pick now (Karpenter's amiDrifted). Subnet: each of the instance's
// interfaces that takes the node class's subnets is in one of them. SecurityGroups: each such
// interface has exactly the resolved groups, as a set. An interface with its own selectors is
// checked against its own resolution instead, matched by (networkCardIndex, deviceIndex).
std::vector<DriftCheck> nodeClassDrift(const api::karpenter::NodeClaim& claim,
                                       const NodeClassDriftContext& context,
                                       const InstanceFacts& instance,
                                       const api::karpenter::HashPolicy& policy);

// The same for one claim, building the context (the node class's hash) on the way.
std::vector<DriftCheck> nodeClassDrift(const api::karpenter::NodeClaim& claim,
                                       const api::karpenter::EC2NodeClass& nodeClass,
                                       const InstanceFacts& instance,
                                       const api::karpenter::HashPolicy& policy);

}  // namespace nodewright::cloud::aws
