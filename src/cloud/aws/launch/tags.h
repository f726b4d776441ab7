#pragma once

#include <map>
#include <string>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"

// The tags that say who owns what a launch makes: the launch template, the instance and its
// volumes and interfaces. Listing, garbage collection and cleanup find their resources by them.
namespace nodewright::cloud::aws {

inline constexpr const char* kTagCluster = "karpenter.k8s.aws/cluster";
inline constexpr const char* kTagNodeClass = "karpenter.k8s.aws/ec2nodeclass";
inline constexpr const char* kTagManagedBy = "karpenter.sh/managed-by";
// Also the label a claim carries.
inline constexpr const char* kLabelNodePool = "karpenter.sh/nodepool";
inline constexpr const char* kTagNodeClaim = "karpenter.sh/nodeclaim";
inline constexpr const char* kTagEksClusterName = "eks:eks-cluster-name";

// "kubernetes.io/cluster/<cluster>".
std::string clusterTagKey(const std::string& clusterName);

// The node class's spec.tags with ours over them: karpenter.k8s.aws/cluster,
// karpenter.k8s.aws/ec2nodeclass, kubernetes.io/cluster/<cluster>=owned and
// karpenter.sh/managed-by. Both the template and the resources it launches carry them.
sdk::Tags ownershipTags(const std::string& clusterName, const std::string& nodeClassName,
                        const std::map<std::string, std::string>& userTags);

// An instance's tags: the ownership tags and the claim's (karpenter.sh/nodepool,
// karpenter.sh/nodeclaim, eks:eks-cluster-name, Name).
sdk::Tags instanceTags(const std::string& clusterName, const api::karpenter::NodeClaim& claim,
                       const api::karpenter::EC2NodeClass& nodeClass);

}  // namespace nodewright::cloud::aws
