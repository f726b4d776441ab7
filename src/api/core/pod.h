#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/affinity.h"
#include "api/core/taint.h"
#include "api/meta.h"
#include "api/reflect/schema.h"

// core/v1 Pod, modelled as far as node-lifecycle controllers need it (scheduling constraints,
// resources, placement and phase). Every partly modelled struct keeps the rest in `unknown`, so
// a decode -> encode round trip leaves fields it does not know unchanged.
namespace nodewright::api::corev1 {

using ResourceList = std::map<std::string, core::Quantity>;

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  Json unknown;  // claims
};
const reflect::StructSchema& describe(reflect::Tag<ResourceRequirements>);

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  // Init containers only: "Always" makes a sidecar that runs beside the app containers.
  std::string restartPolicy;
  Json unknown;  // command, args, env, ports, probes, ...
};
const reflect::StructSchema& describe(reflect::Tag<Container>);

struct PodSpec {
  std::string nodeName;
  std::map<std::string, std::string> nodeSelector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topologySpreadConstraints;
  std::vector<Container> initContainers;
  std::vector<Container> containers;
  ResourceList overhead;
  std::optional<int32_t> priority;
  std::string priorityClassName;
  std::string schedulerName;
  std::optional<int64_t> terminationGracePeriodSeconds;
  std::vector<Json> volumes;  // kept verbatim
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodSpec>);

struct PodCondition {
  std::string type;
  std::string status;
  core::Time lastProbeTime;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<PodCondition>);

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;
  std::string nominatedNodeName;
  std::string hostIP;
  std::string podIP;
  core::Time startTime;
  std::string qosClass;
  Json unknown;  // containerStatuses, podIPs, ...
};
const reflect::StructSchema& describe(reflect::Tag<PodStatus>);

struct Pod {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Pod>);

// A pod template inside a workload (Deployment, ReplicaSet, DaemonSet).
struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<PodTemplateSpec>);

// The condition of `type`, or nullptr.
const PodCondition* findCondition(const PodStatus& status, std::string_view type);

}  // namespace nodewright::api::corev1
