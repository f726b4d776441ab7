#pragma once

// The scheduling benchmark's pod mix for the binder's planner: pods in five shares (plain, zone
// spread, hostname spread, zone self-affinity, hostname anti-affinity) over nodes of 16 CPUs and
// 64Gi in three zones. The unit test checks the placements; bench/emulators times them.
#include <string>
#include <vector>

#include "emulators/kubelet/test_objects.h"

namespace nodewright::emulators::kubelet::testing {

struct PlannerScenario {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
};

inline PlannerScenario fiveSharesScenario(int podCount, int nodeCount) {
  PlannerScenario scenario;
  for (int i = 0; i < nodeCount; ++i) {
    scenario.nodes.push_back(readyNode("node-" + std::to_string(1000 + i).substr(1), "16", "64Gi",
                                       110, "us-east-1" + std::string(1, 'a' + i % 3)));
  }
  const char* cpus[] = {"100m", "250m", "500m", "1", "1500m"};
  for (int i = 0; i < podCount; ++i) {
    const int share = i % 5;
    const std::string app = "share-" + std::to_string(share);
    Pod pod = pendingPod("p" + std::to_string(i), cpus[i % 5], std::to_string(100 + i) + "Mi", app);
    api::corev1::TopologySpreadConstraint spread;
    spread.maxSkew = 1;
    spread.whenUnsatisfiable = "DoNotSchedule";
    spread.labelSelector = api::LabelSelector{{{"app", app}}, {}};
    api::corev1::PodAffinityTerm term;
    term.labelSelector = spread.labelSelector;
    if (share == 1 || share == 2) {
      spread.topologyKey = share == 1 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname";
      pod.spec.topologySpreadConstraints = {spread};
    } else if (share == 3) {
      term.topologyKey = "topology.kubernetes.io/zone";
      pod.spec.affinity.emplace();
      pod.spec.affinity->podAffinity.emplace();
      pod.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution = {term};
    } else if (share == 4) {
      term.topologyKey = "kubernetes.io/hostname";
      pod.spec.affinity.emplace();
      pod.spec.affinity->podAntiAffinity.emplace();
      pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {term};
    }
    scenario.pods.push_back(std::move(pod));
  }
  return scenario;
}

}  // namespace nodewright::emulators::kubelet::testing
