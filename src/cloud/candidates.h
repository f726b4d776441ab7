#pragma once

#include <string>
#include <vector>

#include "api/karpenter/nodeclaim.h"
#include "cloud/instance_type.h"

// The instance types a NodeClaim may launch as: those its requirements allow and its resource
// requests fit, cheapest first. The cloud then picks among them by price and capacity, so a
// claim is never pinned to one type.
namespace nodewright::cloud {

struct CandidateTypes {
  std::vector<const InstanceType*> types;  // cheapest allowed offering first
  // Why nothing is left, when types is empty ("none of the 3 allowed instance types fits
  // nvidia.com/gpu=1").
  std::string emptyReason;
};

// `types` must outlive the result. Requirements on keys a type does not define do not restrict
// it, as in Karpenter: NodePool labels are requirements too. A type needs an available offering
// in a zone and capacity type the requirements allow; its price is that of the cheapest one.
CandidateTypes launchableTypes(const std::vector<InstanceType>& types,
                               const api::karpenter::NodeClaim& claim);

}  // namespace nodewright::cloud
