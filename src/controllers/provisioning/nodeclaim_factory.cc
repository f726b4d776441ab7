#include "controllers/provisioning/nodeclaim_factory.h"

#include "api/karpenter/well_known.h"
#include "api/labels.h"

namespace nodewright::controllers::provisioning {

api::karpenter::NodeClaim makeNodeClaim(const api::karpenter::NodePool& pool,
                                        const scheduling::NewNodeClaim& planned,
                                        const api::karpenter::HashPolicy& policy) {
  const auto& tmpl = pool.spec.template_;
  api::karpenter::NodeClaim claim;
  claim.apiVersion = "karpenter.sh/v1";
  claim.kind = "NodeClaim";
  claim.metadata.generateName = pool.metadata.name + "-";
  claim.metadata.labels = tmpl.metadata.labels;
  claim.metadata.annotations = tmpl.metadata.annotations;
  api::karpenter::stampNodePool(pool, policy, claim.metadata.annotations);
  for (const auto& r : planned.requirements) {
    if (r.operator_ == api::kOpIn && r.values.size() == 1) {
      claim.metadata.labels[r.key] = r.values.front();
    }
  }
  claim.metadata.labels[api::karpenter::kNodePoolLabel] = pool.metadata.name;
  api::OwnerReference owner;
  owner.apiVersion = pool.apiVersion.empty() ? "karpenter.sh/v1" : pool.apiVersion;
  owner.kind = "NodePool";
  owner.name = pool.metadata.name;
  owner.uid = pool.metadata.uid;
  owner.blockOwnerDeletion = true;
  claim.metadata.ownerReferences.push_back(owner);

  claim.spec.taints = tmpl.spec.taints;
  claim.spec.startupTaints = tmpl.spec.startupTaints;
  claim.spec.requirements = planned.requirements;
  claim.spec.resources.requests = planned.requests;
  claim.spec.nodeClassRef = tmpl.spec.nodeClassRef;
  claim.spec.expireAfter = tmpl.spec.expireAfter;
  claim.spec.terminationGracePeriod = tmpl.spec.terminationGracePeriod;
  claim.spec.kubelet = tmpl.spec.kubelet;
  return claim;
}

api::karpenter::NodeClaim makeStaticNodeClaim(const api::karpenter::NodePool& pool,
                                              const api::karpenter::HashPolicy& policy) {
  scheduling::NewNodeClaim planned;
  planned.nodePool = pool.metadata.name;
  planned.requirements = pool.spec.template_.spec.requirements;
  return makeNodeClaim(pool, planned, policy);
}

}  // namespace nodewright::controllers::provisioning
