#pragma once

#include <string>
#include <vector>

#include "api/karpenter/common.h"
#include "api/karpenter/nodepool.h"

// What Karpenter checks on a NodePool at runtime rather than at admission (upstream
// pkg/apis/v1 nodepool_validation.go RuntimeValidate and nodeclaim_validation.go
// ValidateRequirement): label and taint key syntax and length, duplicate taints, restricted and
// well-known labels, and the values of well-known requirements. A NodePool that fails is stored
// as written; the NodePool controller reports it as ValidationSucceeded=False and provisioning
// skips it.
namespace nodewright::api::karpenter {

// Karpenter's WellKnownLabels with the AWS provider's additions: keys a NodePool may constrain
// whatever their domain.
bool isWellKnownLabel(const std::string& key);

// Upstream IsRestrictedLabel: why `key` may not be used in labels or requirements, or empty.
std::string restrictedLabelReason(const std::string& key);

// Upstream ValidateRequirement: one message per problem, empty when the requirement is valid.
std::vector<std::string> runtimeRequirementErrors(const NodeSelectorRequirementWithMinValues& r);

// Upstream NodePool.RuntimeValidate: one message per problem, empty when valid.
std::vector<std::string> runtimeValidate(const NodePool& pool);

}  // namespace nodewright::api::karpenter
