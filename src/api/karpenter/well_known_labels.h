#pragma once

#include <set>
#include <string>

namespace nodewright::api::karpenter {

// Karpenter's WellKnownLabels (kubernetes-sigs/karpenter v1.14 pkg/apis/v1/labels.go) with the keys
// the AWS provider adds at init (aws/karpenter-provider-aws v1.14 pkg/apis/v1/labels.go): the
// requirement keys runtime validation lets through, and the node labels Karpenter's node metrics
// report.
const std::set<std::string, std::less<>>& wellKnownLabels();

}  // namespace nodewright::api::karpenter
