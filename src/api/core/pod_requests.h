#pragma once

#include "api/core/pod.h"

// What a pod asks of a node, as kube-scheduler's NodeResourcesFit computes it (and so every
// component that packs pods must): the larger of the containers' sum and the init containers'
// peak, sidecar init containers (restartPolicy Always) running beside both, plus the pod
// overhead, plus one "pods".
namespace nodewright::api::corev1 {

ResourceList podRequests(const Pod& pod);

}  // namespace nodewright::api::corev1
