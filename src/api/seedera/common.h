#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/reflect/schema.h"

// Value types shared by the seed-era kinds (karpenter.sh/v1alpha5 Provisioner and Machine,
// karpenter.k8s.aws/v1alpha1 AWSNodeTemplate). They are kept apart from the v1 types on
// purpose: the seed-era schema is frozen, and conversion (src/api/conversion/) is the only
// place that knows how the two line up.
namespace nodewright::api::seedera {

// A core/v1 NodeSelectorRequirement (v1alpha5 has no minValues).
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // JSON "operator"
  std::vector<std::string> values;
};
const reflect::StructSchema& describe(reflect::Tag<NodeSelectorRequirement>);

// A core/v1 Taint.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<core::Time> timeAdded;
};
const reflect::StructSchema& describe(reflect::Tag<Taint>);

// v1alpha5 ProviderRef / MachineTemplateRef: a reference to the provider's node template.
// kind and apiVersion are optional upstream (the AWS provider assumes AWSNodeTemplate).
struct ProviderRef {
  std::string kind;
  std::string name;
  std::string apiVersion;
};
const reflect::StructSchema& describe(reflect::Tag<ProviderRef>);

// v1alpha5 KubeletConfiguration. cpuCFSQuota is a plain bool upstream; it is optional here so
// that an explicit false survives a round trip through v1, where it is optional.
struct KubeletConfiguration {
  std::vector<std::string> clusterDNS;
  std::optional<std::string> containerRuntime;
  std::optional<int32_t> maxPods;
  std::optional<int32_t> podsPerCore;
  std::map<std::string, core::Quantity> systemReserved;
  std::map<std::string, core::Quantity> kubeReserved;
  std::map<std::string, std::string> evictionHard;
  std::map<std::string, std::string> evictionSoft;
  std::map<std::string, core::Duration> evictionSoftGracePeriod;
  std::optional<int32_t> evictionMaxPodGracePeriod;
  std::optional<int32_t> imageGCHighThresholdPercent;
  std::optional<int32_t> imageGCLowThresholdPercent;
  std::optional<bool> cpuCFSQuota;
};
const reflect::StructSchema& describe(reflect::Tag<KubeletConfiguration>);

// A knative apis.Condition, as the v1alpha5 kinds report status (it has a severity that
// metav1.Condition lacks).
struct Condition {
  std::string type;
  std::string status;
  std::string severity;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
};
const reflect::StructSchema& describe(reflect::Tag<Condition>);

// Duplicate key/effect pairs across taints and startupTaints (as one set, like upstream).
void validateTaintPairs(const std::vector<Taint>& taints, const FieldPath& taintsPath,
                        const std::vector<Taint>& startupTaints, const FieldPath& startupPath,
                        FieldErrors& errors);

}  // namespace nodewright::api::seedera
