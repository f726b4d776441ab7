#pragma once

#include "api/core/pod.h"

// Which pods the provisioner launches nodes for. Karpenter acts on pods kube-scheduler gave up
// on (PodScheduled=False, reason Unschedulable); in embedded mode the node agent schedules, and
// a pod without a node is pending from the moment it exists.
namespace nodewright::controllers::provisioning {

enum class PendingRule {
  Unschedulable,  // a real cluster: wait for kube-scheduler's verdict
  Unbound,        // embedded mode: no node yet is enough
};

// Not bound, not terminating or finished, for the default scheduler, not a DaemonSet's pod (its
// controller places it on every node anyway), not waiting on a preemption (nominatedNodeName:
// room is being made for it), and pending under `rule`.
bool isProvisionable(const api::corev1::Pod& pod, PendingRule rule);

// A bound pod that would need a new home if its node went: not finished or terminating, not a
// DaemonSet's (it dies with the node) and not a static pod's mirror (kubelet owns it).
bool isReschedulable(const api::corev1::Pod& pod);

// The pod's controller is a DaemonSet.
bool isDaemonSetPod(const api::corev1::Pod& pod);

// "namespace/name", the key scheduling results use.
std::string podKey(const api::corev1::Pod& pod);

}  // namespace nodewright::controllers::provisioning
