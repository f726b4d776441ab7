#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"

// cluster.x-k8s.io/v1beta1 MachineHealthCheck: which Machines of a Cluster are checked, what
// makes one unhealthy, and when remediation is allowed at all.
namespace nodewright::api::capi {

// A Node condition that, held for `timeout`, makes the Machine unhealthy.
struct UnhealthyCondition {
  std::string type;
  std::string status;
  core::Duration timeout;
};
const reflect::StructSchema& describe(reflect::Tag<UnhealthyCondition>);

// The same for a condition of the Machine itself.
struct UnhealthyMachineCondition {
  std::string type;
  std::string status;  // True, False, Unknown
  core::Duration timeout;
};
const reflect::StructSchema& describe(reflect::Tag<UnhealthyMachineCondition>);

struct MachineHealthCheckSpec {
  std::string clusterName;
  LabelSelector selector;
  std::vector<UnhealthyCondition> unhealthyConditions;
  std::vector<UnhealthyMachineCondition> unhealthyMachineConditions;
  std::optional<IntOrString> maxUnhealthy;
  std::optional<std::string> unhealthyRange;  // "[3-5]"
  std::optional<core::Duration> nodeStartupTimeout;
  std::optional<ObjectReference> remediationTemplate;
};
const reflect::StructSchema& describe(reflect::Tag<MachineHealthCheckSpec>);

struct MachineHealthCheckStatus {
  int32_t expectedMachines = 0;
  int32_t currentHealthy = 0;
  int32_t remediationsAllowed = 0;
  int64_t observedGeneration = 0;
  std::vector<std::string> targets;
  std::vector<CapiCondition> conditions;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<MachineHealthCheckStatus>);

struct MachineHealthCheck {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachineHealthCheckSpec spec;
  MachineHealthCheckStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<MachineHealthCheck>);

}  // namespace nodewright::api::capi
