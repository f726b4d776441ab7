#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/meta.h"
#include "api/reflect/field_errors.h"

// The annotations a seed-era -> v1 conversion leaves on the v1 object, so that the reverse
// conversion restores the seed-era object exactly (compared as encoded JSON). Each one carries
// a detail that no v1 field can hold; the reverse conversion removes them all. Values are
// plain text or compact JSON as noted.
//
// NodePool (from karpenter.sh/v1alpha5 Provisioner):
//   compatibility.karpenter.sh/v1alpha5-template-fields
//       Present when the Provisioner had a spec.template (seed 002); lists, comma-separated,
//       the fields it wrote there instead of directly under spec (requirements, labels,
//       taints, annotations, startupTaints, providerRef). Empty for an empty template.
//   compatibility.karpenter.sh/v1alpha5-provider-ref
//       JSON {"apiVersion": ..., "kind": ...} of the providerRef, when either was written
//       (v1's nodeClassRef names the EC2NodeClass group and kind instead).
//   compatibility.karpenter.sh/v1alpha5-last-scale-time
//       status.lastScaleTime (RFC 3339); NodePool status has no such field.
//   compatibility.karpenter.sh/v1alpha5-condition-severities
//       JSON {"<v1 condition type>": "<severity>"} for knative conditions with a severity,
//       which metav1.Condition lacks. Also on NodeClaim.
//
// NodeClaim (from karpenter.sh/v1alpha5 Machine):
//   compatibility.karpenter.sh/v1alpha5-machine-template-ref
//       JSON {"apiVersion": ..., "kind": ...} of spec.machineTemplateRef, when either was written.
//   compatibility.karpenter.sh/v1alpha5-condition-severities (as above).
//
// EC2NodeClass (from karpenter.k8s.aws/v1alpha1 AWSNodeTemplate):
//   compatibility.karpenter.k8s.aws/v1alpha1-selectors
//       JSON {"<seed-era field path>": {<original selector map>}} for every legacy selector
//       whose spelling the v1 terms do not determine ("aws-ids" vs "aws::ids", spaces after
//       commas, the order of IDs). Used on the way back only while the terms still match it.
//   compatibility.karpenter.k8s.aws/v1alpha1-ami-alias
//       The alias ("al2@latest", ...) the conversion derived from amiFamily because the
//       template had no amiSelector (v1 requires amiSelectorTerms). While amiSelectorTerms is
//       exactly that alias, the reverse conversion writes no amiSelector.
namespace nodewright::api::conversion {

inline constexpr const char* kTemplateFieldsAnnotation =
    "compatibility.karpenter.sh/v1alpha5-template-fields";
inline constexpr const char* kProviderRefAnnotation =
    "compatibility.karpenter.sh/v1alpha5-provider-ref";
inline constexpr const char* kLastScaleTimeAnnotation =
    "compatibility.karpenter.sh/v1alpha5-last-scale-time";
inline constexpr const char* kConditionSeveritiesAnnotation =
    "compatibility.karpenter.sh/v1alpha5-condition-severities";
inline constexpr const char* kMachineTemplateRefAnnotation =
    "compatibility.karpenter.sh/v1alpha5-machine-template-ref";
inline constexpr const char* kSelectorsAnnotation =
    "compatibility.karpenter.k8s.aws/v1alpha1-selectors";
inline constexpr const char* kAmiAliasAnnotation =
    "compatibility.karpenter.k8s.aws/v1alpha1-ami-alias";

// Removes and returns one conversion annotation.
std::optional<std::string> takeAnnotation(ObjectMeta& metadata, std::string_view key);

// Removes and parses a JSON conversion annotation; a value that is not JSON is reported at
// metadata.annotations[key] and treated as absent.
std::optional<Json> takeJsonAnnotation(ObjectMeta& metadata, std::string_view key,
                                       FieldErrors& errors);

// Removes every annotation this file defines (and any other of their prefixes), so that no
// conversion bookkeeping leaks into a seed-era object.
void dropConversionAnnotations(ObjectMeta& metadata);

}  // namespace nodewright::api::conversion
