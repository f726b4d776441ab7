#include "controllers/provisioning/pending_pods.h"

#include "api/karpenter/well_known.h"

namespace nodewright::controllers::provisioning {

bool isDaemonSetPod(const api::corev1::Pod& pod) {
  for (const auto& owner : pod.metadata.ownerReferences) {
    if (owner.controller.value_or(false) && owner.kind == "DaemonSet") {
      return true;
    }
  }
  return false;
}

bool isProvisionable(const api::corev1::Pod& pod, PendingRule rule) {
  if (!pod.spec.nodeName.empty() || pod.metadata.deletionTimestamp ||
      pod.status.phase == "Succeeded" || pod.status.phase == "Failed" || isDaemonSetPod(pod) ||
      !pod.status.nominatedNodeName.empty()) {
    return false;
  }
  if (!pod.spec.schedulerName.empty() && pod.spec.schedulerName != "default-scheduler") {
    return false;
  }
  if (rule == PendingRule::Unbound) {
    return true;
  }
  const auto* scheduled = api::corev1::findCondition(pod.status, "PodScheduled");
  return scheduled != nullptr && scheduled->status == "False" &&
         scheduled->reason == "Unschedulable";
}

bool isReschedulable(const api::corev1::Pod& pod) {
  return !pod.metadata.deletionTimestamp && pod.status.phase != "Succeeded" &&
         pod.status.phase != "Failed" && !isDaemonSetPod(pod) &&
         !pod.metadata.annotations.contains(api::karpenter::kMirrorPodAnnotation);
}

std::string podKey(const api::corev1::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

}  // namespace nodewright::controllers::provisioning
