#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/quantity.h"

// What a cloud offers to run a node on, in Kubernetes terms: the scheduler packs pods onto
// these, and the cloud provider launches one of them. Cloud-neutral.
namespace nodewright::cloud {

using ResourceList = std::map<std::string, core::Quantity>;

// Well-known capacity types (karpenter.sh/capacity-type).
inline constexpr const char* kCapacityTypeOnDemand = "on-demand";
inline constexpr const char* kCapacityTypeSpot = "spot";

// One place an instance type can be bought: a zone and a capacity type, at a price.
struct Offering {
  std::string zone;
  std::string capacityType;
  double pricePerHour = 0;  // USD
  // False while the pool is known to be out of capacity (an InsufficientInstanceCapacity
  // answer in the last minutes) or the type is not offered there.
  bool available = true;
};

struct InstanceType {
  std::string name;
  // The node labels every node of this type carries (kubernetes.io/arch, the
  // karpenter.k8s.aws/instance-* family, node.kubernetes.io/instance-type, ...). Zone and
  // capacity type are per offering, so they are not here.
  std::map<std::string, std::string> labels;
  // What the machine has: cpu, memory, pods, ephemeral-storage, and extended resources
  // (nvidia.com/gpu, aws.amazon.com/neuron, vpc.amazonaws.com/efa).
  ResourceList capacity;
  // What the kubelet holds back: kube-reserved, system-reserved and the eviction threshold.
  ResourceList kubeReserved;
  ResourceList systemReserved;
  ResourceList evictionThreshold;
  std::vector<Offering> offerings;

  // capacity minus the three reservations, never below zero.
  ResourceList allocatable() const;
  // The same for one resource, without building the list; zero when the type has none.
  core::Quantity allocatable(const std::string& resource) const;
  // The cheapest available offering's price; +inf when none is available.
  double cheapestAvailablePrice() const;
};

// A type the provider left out for a node class, and why ("4 network interfaces on network card
// 0, m5.large allows 3"), so users can be told (`nodewright explain-types`, the provisioner's
// FailedScheduling events).
struct Exclusion {
  std::string instanceType;
  std::string reason;
  // The rule that left it out, worded to fit every type it applies to, so exclusions can be
  // counted by rule (exclusions.h): "cannot carry the node class's network interfaces".
  std::string rule{};
};

struct InstanceTypes {
  std::vector<InstanceType> compatible;
  std::vector<Exclusion> excluded;
};

}  // namespace nodewright::cloud
