#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/reflect/schema.h"

// Value types shared by the Cluster API kinds (cluster.x-k8s.io/v1beta1) and reused by the
// CAPZ infrastructure kinds, which embed CAPI conditions, endpoints and failure domains.
namespace nodewright::api::capi {

inline constexpr const char* kGroup = "cluster.x-k8s.io";
inline constexpr const char* kVersion = "v1beta1";
inline constexpr const char* kCategory = "cluster-api";

// Well-known labels the CAPI webhooks write.
inline constexpr const char* kClusterNameLabel = "cluster.x-k8s.io/cluster-name";
inline constexpr const char* kMachineDeploymentNameLabel = "cluster.x-k8s.io/deployment-name";
inline constexpr const char* kMachineSetNameLabel = "cluster.x-k8s.io/set-name";
// Annotations the cluster autoscaler reads; the MachineDeployment webhook defaults replicas
// from the minimum when both are present.
inline constexpr const char* kAutoscalerMinSizeAnnotation =
    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
inline constexpr const char* kAutoscalerMaxSizeAnnotation =
    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";

// The condition every CAPI and CAPZ object summarises its state in.
inline constexpr const char* kReadyCondition = "Ready";

// CAPI v1beta1 Condition. Unlike metav1.Condition it carries a severity (meaningful only when
// status is False) and no observedGeneration.
struct CapiCondition {
  std::string type;
  std::string status;
  std::string severity;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
};
const reflect::StructSchema& describe(reflect::Tag<CapiCondition>);

// Errors for repeated condition types: "status.conditions[2].type: Duplicate value: "Ready"".
void validateCapiConditions(const std::vector<CapiCondition>& conditions,
                            const FieldPath& conditionsPath, FieldErrors& errors);

// An endpoint of the Kubernetes API server.
struct APIEndpoint {
  std::string host;
  int32_t port = 0;
};
const reflect::StructSchema& describe(reflect::Tag<APIEndpoint>);

// A failure domain as infrastructure providers report it (an Azure availability zone).
struct FailureDomainSpec {
  bool controlPlane = false;
  std::map<std::string, std::string> attributes;
};
const reflect::StructSchema& describe(reflect::Tag<FailureDomainSpec>);

// An address of a machine (core/v1 NodeAddress shape).
struct MachineAddress {
  std::string type;
  std::string address;
};
const reflect::StructSchema& describe(reflect::Tag<MachineAddress>);

// The metadata a template stamps onto the objects created from it.
struct TemplateMetadata {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};
const reflect::StructSchema& describe(reflect::Tag<TemplateMetadata>);

// True for Kubernetes semantic versions such as "v1.29.2" or "1.30.0-rc.1".
bool isKubeSemver(std::string_view version);

// Rolling-update bounds: a non-negative integer or "N%". Appends errors under `path`.
void validateIntOrPercent(const IntOrString& value, const FieldPath& path, bool atMost100Percent,
                          FieldErrors& errors);

// True when the bound is an explicit zero ("0" or "0%").
bool isZeroIntOrPercent(const IntOrString& value);

// The replica count the CAPI webhooks give a new scalable object: the autoscaler's minimum
// size when both autoscaler size annotations are set and parse, otherwise 1.
int32_t defaultReplicas(const ObjectMeta& metadata);

// `value` when it is a valid label value, otherwise "hash_<base64url(fnv32a)>_z" (CAPI's
// format.MustFormatValue), so that any object name can be used in a label.
std::string formatLabelValue(const std::string& value);

// A machine-creating controller's selector defaults: an empty selector selects the object by
// `nameLabel`, and both selector and template carry the cluster name.
void defaultSelector(LabelSelector& selector, TemplateMetadata& templateMetadata,
                     const std::string& nameLabel, const std::string& objectName,
                     const std::string& clusterName);

// Machine templates must carry labels their controller's selector matches.
void validateSelectorMatchesTemplate(const LabelSelector& selector,
                                     const TemplateMetadata& templateMetadata,
                                     const FieldPath& spec, FieldErrors& errors);

}  // namespace nodewright::api::capi
