#pragma once

#include "api/conversion/common.h"
#include "api/karpenter/nodepool.h"
#include "api/seedera/provisioner.h"

// karpenter.sh/v1alpha5 Provisioner <-> karpenter.sh/v1 NodePool, after Karpenter's own
// v1beta1/v1 migration:
//   labels, annotations              -> spec.template.metadata
//   taints, startupTaints,
//   requirements                     -> spec.template.spec
//   kubeletConfiguration             -> spec.template.spec.kubelet (containerRuntime: error)
//   providerRef {apiVersion,kind,name} -> spec.template.spec.nodeClassRef
//                                       {karpenter.k8s.aws, EC2NodeClass, name}
//   ttlSecondsUntilExpired           -> spec.template.spec.expireAfter ("Never" when unset:
//                                       v1alpha5 nodes did not expire by default)
//   consolidation.enabled            -> disruption WhenEmptyOrUnderutilized, consolidateAfter 0s
//   ttlSecondsAfterEmpty             -> disruption WhenEmpty, consolidateAfter <ttl>s
//   neither                          -> disruption WhenEmpty, consolidateAfter Never
//   limits.resources, weight         -> spec.limits, spec.weight
//   spec.provider (inline)           -> error: v1 has no inline provider
// Seed 002's spec.template form converts like the flat fields; which form each field used is
// kept in annotations (see annotations.h).
namespace nodewright::api::conversion {

// Fails with every field that has no v1 home, or that would not survive the way back.
Converted<karpenter::NodePool> toNodePool(const seedera::Provisioner& provisioner);

// Restores a converted Provisioner exactly; for other NodePools, fails with every v1-only
// setting (budgets other than the default, terminationGracePeriod, minValues, ...). Values the
// v1 defaulting adds (expireAfter 720h, the 10% budget) are accepted.
Converted<seedera::Provisioner> toProvisioner(const karpenter::NodePool& nodePool);

}  // namespace nodewright::api::conversion
