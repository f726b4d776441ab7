#include "api/scale.h"

namespace nodewright::api {

std::optional<ScaleSubresource> scaleSubresource(std::string_view group, std::string_view kind) {
  if (group == "apps" && (kind == "Deployment" || kind == "ReplicaSet")) {
    return ScaleSubresource{".spec.replicas", ".status.replicas", ".spec.selector", 1};
  }
  if (group == "cluster.x-k8s.io" &&
      (kind == "MachineDeployment" || kind == "MachineSet" || kind == "MachinePool")) {
    return ScaleSubresource{".spec.replicas", ".status.replicas", ".status.selector", 1};
  }
  if (group == "controlplane.cluster.x-k8s.io" && kind == "KubeadmControlPlane") {
    return ScaleSubresource{".spec.replicas", ".status.replicas", ".status.selector", 1};
  }
  if (group == "karpenter.sh" && kind == "NodePool") {
    return ScaleSubresource{".spec.replicas", ".status.nodes", "", 0};
  }
  return std::nullopt;
}

}  // namespace nodewright::api
