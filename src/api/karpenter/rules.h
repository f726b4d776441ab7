#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/common.h"

// Validation rules shared by the Karpenter kinds, following the CEL rules and webhooks of
// karpenter.sh/v1 and karpenter.k8s.aws/v1. Internal to src/api/karpenter.
namespace nodewright::api::karpenter::rules {

// apimachinery's IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name of at
// most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric. Upstream
// checks it at runtime (NodePool RuntimeValidate), not at admission.
bool isQualifiedName(std::string_view key);
// apimachinery's IsValidLabelValue: empty, or a qualified name's name part.
bool isLabelValue(std::string_view value);
extern const char* const kQualifiedNameDetail;
extern const char* const kLabelValueDetail;

// The CRD patterns karpenter.sh/v1 checks at admission. Unlike isQualifiedName they put no
// limit on the length of the prefix or its labels (upstream leaves that to runtime).
extern const char* const kKeyPattern;    // requirement keys, taint keys and values
extern const char* const kValuePattern;  // requirement values, template label values
bool matchesKeyPattern(std::string_view key);
bool matchesValuePattern(std::string_view value);
// kube-apiserver's words for a value that fails a schema pattern.
std::string patternError(const std::string& value, const std::string& path,
                         std::string_view pattern);
// kube-apiserver's words for a failed x-kubernetes-validations rule on a value of `type`
// ("string", "object", "array").
std::string celError(std::string_view type, std::string_view message);

// The messages of the CEL rules a requirement key or template label key breaks (the
// karpenter.sh and karpenter.k8s.aws domains, kubernetes.io/hostname and, on NodePools,
// karpenter.sh/nodepool), in the CRD's order; empty when it breaks none.
std::vector<std::string> restrictedKeyMessages(std::string_view key, bool forbidNodePool);

// Template label keys and values as the NodePool CRD admits them: values by pattern and length,
// at most 100 labels, keys only by the CEL rules on the map.
void validateLabels(const std::map<std::string, std::string>& labels, const FieldPath& path,
                    FieldErrors& errors);

// The x-kubernetes-validations on a requirements list (In needs values; Gt/Lt/Gte/Lte take one
// non-negative integer; In with minValues needs that many values), reported at the list.
void validateRequirementList(const std::vector<NodeSelectorRequirementWithMinValues>& reqs,
                             const FieldPath& path, FieldErrors& errors);

// The duration shapes the upstream CRD patterns allow.
enum class DurationRule {
  SecondsOrNever,  // ^(([0-9]+(s|m|h))+|Never)$
  Seconds,         // ^([0-9]+(s|m|h))+$
  MinutesOrHours,  // budget windows: cron has no seconds
};
void checkDuration(const std::optional<core::Duration>& duration, DurationRule rule,
                   const FieldPath& path, FieldErrors& errors);

// Condition types must not repeat (metav1 conditions are a map keyed by type).
void validateConditions(const std::vector<Condition>& conditions, const FieldPath& path,
                        FieldErrors& errors);

// AWS tag maps used for selection: no empty keys or values, at most 20 entries.
void validateSelectorTags(const std::map<std::string, std::string>& tags, const FieldPath& path,
                          FieldErrors& errors);

}  // namespace nodewright::api::karpenter::rules
