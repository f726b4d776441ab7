#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/reflect/schema.h"

// Value types shared by the Karpenter v1 kinds (karpenter.sh NodePool/NodeClaim and
// karpenter.k8s.aws EC2NodeClass).
namespace nodewright::api::karpenter {

// A node selector requirement with an optional floor on how many distinct values the
// scheduler must keep flexible (Karpenter's minValues).
struct NodeSelectorRequirementWithMinValues {
  std::string key;
  std::string operator_;  // JSON "operator"
  std::vector<std::string> values;
  std::optional<int32_t> minValues;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelectorRequirementWithMinValues>);

// A plain node selector requirement, as EC2NodeClass status reports AMI requirements.
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // JSON "operator"
  std::vector<std::string> values;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelectorRequirement>);

// A core/v1 Taint as Karpenter places it on the nodes it launches.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<core::Time> timeAdded;
};
const reflect::StructSchema& describe(reflect::Tag<Taint>);

// Points at the cloud-specific node class (for AWS: karpenter.k8s.aws EC2NodeClass).
struct NodeClassReference {
  std::string group;
  std::string kind;
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<NodeClassReference>);

// The subset of kubelet settings Karpenter v1 passes through to the nodes it launches.
struct KubeletConfiguration {
  std::vector<std::string> clusterDNS;
  std::optional<int32_t> maxPods;
  std::optional<int32_t> podsPerCore;
  std::map<std::string, std::string> systemReserved;
  std::map<std::string, std::string> kubeReserved;
  std::map<std::string, std::string> evictionHard;
  std::map<std::string, std::string> evictionSoft;
  std::map<std::string, core::Duration> evictionSoftGracePeriod;
  std::optional<int32_t> evictionMaxPodGracePeriod;
  std::optional<int32_t> imageGCHighThresholdPercent;
  std::optional<int32_t> imageGCLowThresholdPercent;
  std::optional<bool> cpuCFSQuota;
};
const reflect::StructSchema& describe(reflect::Tag<KubeletConfiguration>);

}  // namespace nodewright::api::karpenter
