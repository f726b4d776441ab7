#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodepool.h"

// Drift hashes (seed 002): a NodeClaim is stamped at launch with the hash of its NodePool's
// template and of its node class's spec, static fields only, and with the version of the hash
// algorithm. A claim whose version differs from the running one is re-stamped, never drifted,
// so an upgrade that changes how hashes are computed cannot roll the fleet (the complaint of
// aws/karpenter-provider-aws#5373). Our versions differ from Karpenter's ("v3", "v4") on
// purpose: claims Karpenter stamped are re-stamped when nodewright takes them over.
namespace nodewright::api::karpenter {

inline constexpr const char* kNodePoolHashAnnotation = "karpenter.sh/nodepool-hash";
inline constexpr const char* kNodePoolHashVersionAnnotation = "karpenter.sh/nodepool-hash-version";
inline constexpr const char* kNodeClassHashAnnotation = "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr const char* kNodeClassHashVersionAnnotation =
    "karpenter.k8s.aws/ec2nodeclass-hash-version";
// The static fields the hash covered, as compact JSON: what the node was launched with, so a
// Drifted condition can name the fields that changed and their old and new values.
inline constexpr const char* kNodePoolStaticAnnotation = "nodewright.sh/nodepool-static";
inline constexpr const char* kNodeClassStaticAnnotation = "nodewright.sh/ec2nodeclass-static";

// How hashes are computed. The salt exists so a test build can stand in for an upgrade that
// changed every hash.
struct HashPolicy {
  std::string version;
  uint64_t salt = 0;
};

const HashPolicy& defaultHashPolicy();

// Of spec.template (labels, annotations, taints, startupTaints, nodeClassRef, expireAfter,
// terminationGracePeriod, kubelet; requirements drift by compatibility instead).
std::string nodePoolHash(const NodePool& pool, const HashPolicy& policy);
// Of spec, static fields only (selectors drift by resolution; deleteOnTermination never).
std::string nodeClassHash(const EC2NodeClass& nodeClass, const HashPolicy& policy);

// Writes the hash, its version and the static snapshot into `annotations`.
void stampNodePool(const NodePool& pool, const HashPolicy& policy,
                   std::map<std::string, std::string>& annotations);
void stampNodeClass(const EC2NodeClass& nodeClass, const HashPolicy& policy,
                    std::map<std::string, std::string>& annotations);

}  // namespace nodewright::api::karpenter
