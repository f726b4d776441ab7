#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"

// cluster.x-k8s.io/v1beta1 Machine: one node's worth of infrastructure plus its bootstrap data.
// MachineSpec is also the template of MachineSets, MachineDeployments and MachinePools.
namespace nodewright::api::capi {

// Where a machine's bootstrap data comes from: a provider config object or a ready secret.
struct Bootstrap {
  std::optional<ObjectReference> configRef;
  std::optional<std::string> dataSecretName;
};
const reflect::StructSchema& describe(reflect::Tag<Bootstrap>);

// A condition (of the Machine) that must be True before the node counts as ready.
struct MachineReadinessGate {
  std::string conditionType;
};
const reflect::StructSchema& describe(reflect::Tag<MachineReadinessGate>);

struct MachineSpec {
  std::string clusterName;
  Bootstrap bootstrap;
  ObjectReference infrastructureRef;
  std::optional<std::string> version;
  std::optional<std::string> providerID;
  std::optional<std::string> failureDomain;
  std::vector<MachineReadinessGate> readinessGates;
  std::optional<core::Duration> nodeDrainTimeout;
  std::optional<core::Duration> nodeVolumeDetachTimeout;
  std::optional<core::Duration> nodeDeletionTimeout;
};
const reflect::StructSchema& describe(reflect::Tag<MachineSpec>);

// The spec and metadata from which a controller stamps out Machines.
struct MachineTemplateSpec {
  TemplateMetadata metadata;
  MachineSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<MachineTemplateSpec>);

// Progress of a machine's deletion (drain and volume detach started at).
struct MachineDeletionStatus {
  std::optional<core::Time> nodeDrainStartTime;
  std::optional<core::Time> waitForNodeVolumeDetachStartTime;
};
const reflect::StructSchema& describe(reflect::Tag<MachineDeletionStatus>);

struct MachineStatus {
  std::optional<ObjectReference> nodeRef;
  Json nodeInfo;  // core/v1 NodeSystemInfo, kept verbatim
  std::optional<core::Time> lastUpdated;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::vector<MachineAddress> addresses;
  std::string phase;
  std::optional<core::Time> certificatesExpiryDate;
  bool bootstrapReady = false;
  bool infrastructureReady = false;
  int64_t observedGeneration = 0;
  std::vector<CapiCondition> conditions;
  std::optional<MachineDeletionStatus> deletion;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<MachineStatus>);

struct Machine {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  MachineSpec spec;
  MachineStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Machine>);

// "v" prefix as the CAPI webhooks normalise versions ("1.30.0" becomes "v1.30.0").
void normalizeVersion(std::optional<std::string>& version);

// spec.version must be a Kubernetes semantic version; appends to errors under `path`.
void validateVersion(const std::optional<std::string>& version, const FieldPath& path,
                     FieldErrors& errors);

}  // namespace nodewright::api::capi
