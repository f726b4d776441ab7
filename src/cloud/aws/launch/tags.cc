#include "cloud/aws/launch/tags.h"

namespace nodewright::cloud::aws {

std::string clusterTagKey(const std::string& clusterName) {
  return "kubernetes.io/cluster/" + clusterName;
}

sdk::Tags ownershipTags(const std::string& clusterName, const std::string& nodeClassName,
                        const std::map<std::string, std::string>& userTags) {
  sdk::Tags tags(userTags.begin(), userTags.end());
  tags[kTagCluster] = clusterName;
  tags[kTagNodeClass] = nodeClassName;
  tags[clusterTagKey(clusterName)] = "owned";
  tags[kTagManagedBy] = clusterName;
  return tags;
}

sdk::Tags instanceTags(const std::string& clusterName, const api::karpenter::NodeClaim& claim,
                       const api::karpenter::EC2NodeClass& nodeClass) {
  sdk::Tags tags = ownershipTags(clusterName, nodeClass.metadata.name, nodeClass.spec.tags);
  auto pool = claim.metadata.labels.find(kLabelNodePool);
  tags[kLabelNodePool] = pool == claim.metadata.labels.end() ? "" : pool->second;
  tags[kTagNodeClaim] = claim.metadata.name;
  tags[kTagEksClusterName] = clusterName;
  tags["Name"] = claim.metadata.name;
  return tags;
}

}  // namespace nodewright::cloud::aws
