#include "api/karpenter/well_known_labels.h"

namespace nodewright::api::karpenter {

const std::set<std::string, std::less<>>& wellKnownLabels() {
  static const std::set<std::string, std::less<>> labels = {
      "karpenter.sh/nodepool",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "node.kubernetes.io/instance-type",
      "kubernetes.io/arch",
      "kubernetes.io/os",
      "karpenter.sh/capacity-type",
      "node.kubernetes.io/windows-build",
      "karpenter.k8s.aws/capacity-reservation-id",
      "karpenter.k8s.aws/capacity-reservation-type",
      "karpenter.k8s.aws/capacity-reservation-interruptible",
      "karpenter.k8s.aws/instance-hypervisor",
      "karpenter.k8s.aws/instance-encryption-in-transit-supported",
      "karpenter.k8s.aws/instance-category",
      "karpenter.k8s.aws/instance-capability-flex",
      "karpenter.k8s.aws/instance-family",
      "karpenter.k8s.aws/instance-generation",
      "karpenter.k8s.aws/instance-size",
      "karpenter.k8s.aws/instance-local-nvme",
      "karpenter.k8s.aws/instance-cpu",
      "karpenter.k8s.aws/instance-cpu-manufacturer",
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
      "karpenter.k8s.aws/instance-memory",
      "karpenter.k8s.aws/instance-ebs-bandwidth",
      "karpenter.k8s.aws/instance-network-bandwidth",
      "karpenter.k8s.aws/instance-gpu-name",
      "karpenter.k8s.aws/instance-gpu-manufacturer",
      "karpenter.k8s.aws/instance-gpu-count",
      "karpenter.k8s.aws/instance-gpu-memory",
      "karpenter.k8s.aws/instance-accelerator-name",
      "karpenter.k8s.aws/instance-accelerator-manufacturer",
      "karpenter.k8s.aws/instance-accelerator-count",
      "topology.k8s.aws/zone-id",
      "karpenter.k8s.aws/instance-tenancy",
      "karpenter.k8s.aws/placement-group-id",
      "karpenter.k8s.aws/placement-group-partition",
  };
  return labels;
}

}  // namespace nodewright::api::karpenter
