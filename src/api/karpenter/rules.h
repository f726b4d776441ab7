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
// most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric.
bool isQualifiedName(std::string_view key);
// apimachinery's IsValidLabelValue: empty, or a qualified name's name part.
bool isLabelValue(std::string_view value);
extern const char* const kQualifiedNameDetail;
extern const char* const kLabelValueDetail;

// Why a node label key may not be set by a NodePool (kubelet-owned or Karpenter-reserved
// domains), or nullopt. `allowNodePool` admits karpenter.sh/nodepool, which NodeClaims carry.
std::optional<std::string> restrictedLabel(std::string_view key, bool allowNodePool);

// Label keys and values of a NodePool template or a NodeClaim.
void validateLabels(const std::map<std::string, std::string>& labels, const FieldPath& path,
                    FieldErrors& errors);

// Taints and startup taints share one key/effect namespace on the node.
void validateTaintLists(const std::vector<Taint>& taints, const std::vector<Taint>& startupTaints,
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
