#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"
#include "cloud/instance_type.h"
#include "core/error.h"

// One EC2 instance type in Kubernetes terms, computed as Karpenter's AWS provider does
// (karpenter-provider-aws pkg/providers/instancetype/types.go): the well-known labels, the
// capacity, and what the kubelet holds back (kube-reserved, system-reserved, eviction
// thresholds). Offerings are the provider's (provider.h). Pure functions; thread-safe.
namespace nodewright::cloud::aws {

// The node class and kubelet settings that shape capacity and overhead.
struct InstanceTypeSettings {
  std::string family;  // kFamily* of nodeclass/resolved.h (nodeclass::familyOf); empty: AL2023
  std::vector<api::karpenter::BlockDeviceMapping> blockDeviceMappings;
  std::string instanceStorePolicy;  // "RAID0" or empty
  std::optional<api::karpenter::KubeletConfiguration> kubelet;
  std::string region;  // topology.kubernetes.io/region; left out when empty
  // Memory the hypervisor keeps, as a fraction of MemoryInfo.SizeInMiB (Karpenter's
  // --vm-memory-overhead-percent).
  double vmMemoryOverheadPercent = 0.075;
  // ENIs kept away from the VPC CNI (Karpenter's --reserved-enis).
  int reservedENIs = 0;
};

// The kubelet settings nodes launch with: the EC2NodeClass's (where karpenter.k8s.aws/v1 keeps
// them), else the NodePool's or NodeClaim's (where v1beta1 kept them). Capacity, user data and
// launch templates all read this one, so the scheduler packs for the maxPods the node gets.
inline const std::optional<api::karpenter::KubeletConfiguration>& effectiveKubelet(
    const api::karpenter::EC2NodeClassSpec& nodeClass,
    const std::optional<api::karpenter::KubeletConfiguration>& fallback) {
  return nodeClass.kubelet ? nodeClass.kubelet : fallback;
}

// kubernetes.io/arch: "amd64" or "arm64" from ProcessorInfo.SupportedArchitectures; nullopt
// when the type has neither (mac, i386-only).
std::optional<std::string> kubeArchitecture(const sdk::InstanceTypeInfo& info);

// The pods the VPC CNI can address: ENIs on the default card (minus reserved ones) times
// (IPv4 addresses per ENI - 1), plus 2 for the host-network pods. nullopt when EC2 gave no
// IPv4 address count for the type.
std::optional<int64_t> eniLimitedPods(const sdk::InstanceTypeInfo& info, int reservedENIs);

// The node labels every node of `info` carries (kubernetes.io/arch, the karpenter.k8s.aws/
// instance-* labels, ...). REQUIRES: kubeArchitecture(info).
std::map<std::string, std::string> instanceTypeLabels(const sdk::InstanceTypeInfo& info,
                                                      std::string_view region);

// Builds InstanceTypes for one set of settings. The kubelet's quantities are parsed once, by
// create().
class InstanceTypeBuilder {
 public:
  // Invalid, naming the field (spec.kubelet.kubeReserved[cpu]), when a kubelet quantity or
  // eviction signal does not parse.
  static core::Result<InstanceTypeBuilder> create(InstanceTypeSettings settings);

  // Name, labels, capacity and overheads; no offerings. Invalid when the type cannot run pods
  // as described (no amd64/arm64 architecture, or no known IPv4 addresses per ENI), naming the
  // type.
  core::Result<cloud::InstanceType> build(const sdk::InstanceTypeInfo& info) const;

  const InstanceTypeSettings& settings() const { return settings_; }

 private:
  // kubelet evictionHard/evictionSoft signals: a quantity or a percentage of capacity.
  struct Signal {
    std::optional<core::Quantity> quantity;
    double percent = 0;
  };
  using Signals = std::map<std::string, Signal>;  // cloud resource name -> signal

  explicit InstanceTypeBuilder(InstanceTypeSettings settings) : settings_(std::move(settings)) {}

  int64_t pods(const sdk::InstanceTypeInfo& info, int64_t eniPods) const;
  core::Quantity memory(const sdk::InstanceTypeInfo& info) const;
  core::Quantity ephemeralStorage(const sdk::InstanceTypeInfo& info) const;
  cloud::ResourceList kubeReserved(const sdk::InstanceTypeInfo& info, int64_t pods,
                                   int64_t eniPods) const;
  cloud::ResourceList evictionThreshold(const cloud::ResourceList& capacity) const;

  InstanceTypeSettings settings_;
  cloud::ResourceList kubeReservedOverrides_;
  cloud::ResourceList systemReserved_;
  std::vector<Signals> evictionSignals_;  // evictionHard, then evictionSoft where it applies
};

}  // namespace nodewright::cloud::aws
