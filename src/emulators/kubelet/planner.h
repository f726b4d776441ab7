#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "emulators/kubelet/pod_filter.h"
#include "emulators/kubelet/pod_resources.h"

// kube-scheduler's filters, first fit: places pods one at a time onto the first node (in the
// given order) that passes every predicate, and counts each placement for the pods after it.
// Pure: no I/O, so one pass over hundreds of pods and nodes takes milliseconds.
// Not thread-safe; the pods and nodes it is given must outlive it.
namespace nodewright::emulators::kubelet {

class Planner {
 public:
  // `nodes` in first-fit order; `bound` the pods holding resources on them, with the node each
  // is on (pods on other nodes are ignored).
  Planner(std::vector<const api::corev1::Node*> nodes,
          const std::vector<std::pair<const api::corev1::Pod*, std::string>>& bound);

  struct Placement {
    std::optional<std::string> node;
    // Why no node fits, as kube-scheduler words it: "0/3 nodes are available: 1 Insufficient
    // cpu, 2 node(s) had untolerated taint {dedicated: gpu}."
    std::string reason;
  };
  // The first node `pod` fits; the placement is committed.
  Placement place(const api::corev1::Pod& pod);

 private:
  struct NodeInfo {
    const api::corev1::Node* node;
    Resources free;                          // allocatable minus what the pods on it request
    std::vector<api::corev1::Taint> taints;  // NoSchedule and NoExecute, pseudo-taints included
  };
  struct Counter {
    PodFilter filter;
    std::vector<int> perNode;  // pods the filter matches, by node index
  };
  // The required anti-affinity terms of placed pods: which domains of a topology key hold a
  // pod whose term matches the incoming pod.
  struct AntiGroup {
    PodFilter filter;
    std::string topologyKey;
    std::set<std::string> domains;
  };
  // Per pod: the state of its constraints over all nodes, computed once per place().
  struct PodState;

  Counter& counter(const PodFilter& filter);
  void commit(const api::corev1::Pod& pod, int node, const Resources& requests);
  void addAntiTerms(const api::corev1::Pod& pod, int node);
  PodState prepare(const api::corev1::Pod& pod);
  // The reasons node `n` rejects the pod; empty when it fits.
  std::vector<std::string> misfit(const api::corev1::Pod& pod, const PodState& state, int n);
  const std::string* label(int node, const std::string& key) const;

  std::vector<NodeInfo> nodes_;
  std::unordered_map<std::string, int> index_;  // node name -> index
  std::vector<std::pair<const api::corev1::Pod*, int>> placed_;
  std::unordered_map<std::string, Counter> counters_;  // by PodFilter::key()
  std::unordered_map<std::string, AntiGroup> anti_;    // by filter key and topology key
};

// The tolerations of `pod` tolerate every NoSchedule and NoExecute taint in `taints`; the first
// one not tolerated otherwise.
const api::corev1::Taint* untolerated(const std::vector<api::corev1::Toleration>& tolerations,
                                      const std::vector<api::corev1::Taint>& taints);

// nodeSelector and required node affinity.
bool nodeAffinityMatches(const api::corev1::PodSpec& spec, const api::corev1::Node& node);

}  // namespace nodewright::emulators::kubelet
