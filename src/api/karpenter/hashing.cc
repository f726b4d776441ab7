#include "api/karpenter/hashing.h"

#include "api/codec.h"
#include "api/reflect/diff.h"

namespace nodewright::api::karpenter {
namespace {

template <class T>
std::string saltedHash(const T& value, const HashPolicy& policy) {
  core::Hasher hasher;
  if (policy.salt != 0) {
    hasher.addU64(policy.salt);
  }
  reflect::opsFor<T>().hash(&value, nullptr, HashOptions{}, hasher);
  return hashString(hasher.value());
}

}  // namespace

const HashPolicy& defaultHashPolicy() {
  static const HashPolicy policy{"nw1", 0};
  return policy;
}

std::string nodePoolHash(const NodePool& pool, const HashPolicy& policy) {
  return saltedHash(pool.spec.template_, policy);
}

std::string nodeClassHash(const EC2NodeClass& nodeClass, const HashPolicy& policy) {
  return saltedHash(nodeClass.spec, policy);
}

void stampNodePool(const NodePool& pool, const HashPolicy& policy,
                   std::map<std::string, std::string>& annotations) {
  annotations[kNodePoolHashAnnotation] = nodePoolHash(pool, policy);
  annotations[kNodePoolHashVersionAnnotation] = policy.version;
  annotations[kNodePoolStaticAnnotation] = dumpJson(staticJson(pool.spec.template_));
}

void stampNodeClass(const EC2NodeClass& nodeClass, const HashPolicy& policy,
                    std::map<std::string, std::string>& annotations) {
  annotations[kNodeClassHashAnnotation] = nodeClassHash(nodeClass, policy);
  annotations[kNodeClassHashVersionAnnotation] = policy.version;
  annotations[kNodeClassStaticAnnotation] = dumpJson(staticJson(nodeClass.spec));
}

}  // namespace nodewright::api::karpenter
