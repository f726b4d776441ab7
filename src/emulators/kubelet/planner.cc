#include "emulators/kubelet/planner.h"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::corev1::Taint;

constexpr const char* kNotReadyTaint = "node.kubernetes.io/not-ready";
constexpr const char* kUnschedulableTaint = "node.kubernetes.io/unschedulable";

Taint pseudoTaint(const char* key) {
  Taint taint;
  taint.key = key;
  taint.effect = api::corev1::kTaintEffectNoSchedule;
  return taint;
}

bool hardEffect(const Taint& taint) {
  return taint.effect == api::corev1::kTaintEffectNoSchedule ||
         taint.effect == api::corev1::kTaintEffectNoExecute;
}

const api::corev1::NodeSelector* requiredNodeAffinity(const api::corev1::PodSpec& spec) {
  if (!spec.affinity || !spec.affinity->nodeAffinity ||
      !spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    return nullptr;
  }
  return &*spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

const std::vector<api::corev1::PodAffinityTerm>* antiTerms(const Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->podAntiAffinity
             ? &a->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution
             : nullptr;
}

const std::vector<api::corev1::PodAffinityTerm>* affinityTerms(const Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->podAffinity ? &a->podAffinity->requiredDuringSchedulingIgnoredDuringExecution
                             : nullptr;
}

std::string resourceMessage(const std::string& resource) {
  return resource == kPodsResource ? "Too many pods" : "Insufficient " + resource;
}

}  // namespace

const Taint* untolerated(const std::vector<api::corev1::Toleration>& tolerations,
                         const std::vector<Taint>& taints) {
  for (const Taint& taint : taints) {
    if (hardEffect(taint) && !api::corev1::tolerates(tolerations, taint)) {
      return &taint;
    }
  }
  return nullptr;
}

bool nodeAffinityMatches(const api::corev1::PodSpec& spec, const Node& node) {
  const auto& labels = node.metadata.labels;
  for (const auto& [key, value] : spec.nodeSelector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  const auto* required = requiredNodeAffinity(spec);
  return required == nullptr || api::corev1::matches(*required, labels, node.metadata.name);
}

struct Planner::PodState {
  struct Domains {
    std::string key;
    std::set<std::string> values;
  };
  struct Spread {
    std::string key;
    int maxSkew = 1;
    int self = 0;
    int min = 0;
    std::unordered_map<std::string, int> counts;
  };
  Resources requests;
  std::vector<char> affinityOk;
  std::vector<Domains> antiOwn;   // domains holding a pod the pod's own term matches
  std::vector<Domains> affinity;  // likewise, for its affinity terms
  bool affinityAnywhere = false;  // no pod matches its terms, and it matches them itself
  std::vector<const AntiGroup*> antiExisting;
  std::vector<Spread> spread;
};

Planner::Planner(std::vector<const Node*> nodes,
                 const std::vector<std::pair<const Pod*, std::string>>& bound) {
  nodes_.reserve(nodes.size());
  for (const Node* node : nodes) {
    NodeInfo info;
    info.node = node;
    info.free = toMilli(node->status.allocatable);
    for (const Taint& taint : node->spec.taints) {
      if (hardEffect(taint)) {
        info.taints.push_back(taint);
      }
    }
    // What the node lifecycle controller and NodeUnschedulable add, as taints, so pods that
    // tolerate them (DaemonSet pods) still fit.
    if (!isNodeReady(*node)) {
      info.taints.push_back(pseudoTaint(kNotReadyTaint));
    }
    if (node->spec.unschedulable) {
      info.taints.push_back(pseudoTaint(kUnschedulableTaint));
    }
    index_.emplace(node->metadata.name, static_cast<int>(nodes_.size()));
    nodes_.push_back(std::move(info));
  }
  for (const auto& [pod, nodeName] : bound) {
    auto it = index_.find(nodeName);
    if (it != index_.end()) {
      subtract(nodes_[it->second].free, podMilliRequests(*pod));
      placed_.emplace_back(pod, it->second);
      addAntiTerms(*pod, it->second);
    }
  }
}

const std::string* Planner::label(int node, const std::string& key) const {
  const auto& labels = nodes_[node].node->metadata.labels;
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

Planner::Counter& Planner::counter(const PodFilter& filter) {
  const std::string key = filter.key();
  auto it = counters_.find(key);
  if (it != counters_.end()) {
    return it->second;
  }
  Counter built;
  built.filter = filter;
  built.perNode.assign(nodes_.size(), 0);
  for (const auto& [pod, node] : placed_) {
    if (filter.matches(*pod)) {
      ++built.perNode[node];
    }
  }
  return counters_.emplace(key, std::move(built)).first->second;
}

void Planner::addAntiTerms(const Pod& pod, int node) {
  const auto* terms = antiTerms(pod);
  if (terms == nullptr) {
    return;
  }
  for (const auto& term : *terms) {
    PodFilter filter = filterOf(term, pod);
    const std::string key = filter.key() + "@" + term.topologyKey;
    auto [it, added] = anti_.try_emplace(key);
    if (added) {
      it->second.filter = std::move(filter);
      it->second.topologyKey = term.topologyKey;
    }
    if (const std::string* domain = label(node, term.topologyKey)) {
      it->second.domains.insert(*domain);
    }
  }
}

Planner::PodState Planner::prepare(const Pod& pod) {
  PodState state;
  state.requests = podMilliRequests(pod);
  state.affinityOk.resize(nodes_.size());
  for (size_t n = 0; n < nodes_.size(); ++n) {
    state.affinityOk[n] = nodeAffinityMatches(pod.spec, *nodes_[n].node);
  }
  // The domains of each term's topology key that hold a pod the term matches.
  auto domainsOf = [&](const api::corev1::PodAffinityTerm& term) {
    PodState::Domains domains;
    domains.key = term.topologyKey;
    const Counter& c = counter(filterOf(term, pod));
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const std::string* value = c.perNode[n] > 0 ? label(n, term.topologyKey) : nullptr;
      if (value != nullptr) {
        domains.values.insert(*value);
      }
    }
    return domains;
  };
  if (const auto* terms = antiTerms(pod)) {
    for (const auto& term : *terms) {
      state.antiOwn.push_back(domainsOf(term));
    }
  }
  if (const auto* terms = affinityTerms(pod)) {
    bool anyPod = false;
    bool selfMatches = true;
    for (const auto& term : *terms) {
      state.affinity.push_back(domainsOf(term));
      anyPod = anyPod || !state.affinity.back().values.empty();
      selfMatches = selfMatches && filterOf(term, pod).matches(pod);
    }
    state.affinityAnywhere = !anyPod && selfMatches;
  }
  for (const auto& [key, group] : anti_) {
    if (!group.domains.empty() && group.filter.matches(pod)) {
      state.antiExisting.push_back(&group);
    }
  }
  for (const auto& constraint : pod.spec.topologySpreadConstraints) {
    if (constraint.whenUnsatisfiable != "DoNotSchedule") {
      continue;
    }
    PodState::Spread spread;
    spread.key = constraint.topologyKey;
    spread.maxSkew = std::max(constraint.maxSkew, 1);
    const PodFilter filter = filterOf(constraint, pod);
    spread.self = filter.matches(pod) ? 1 : 0;
    const Counter& c = counter(filter);
    const bool honorAffinity = constraint.nodeAffinityPolicy != "Ignore";
    const bool honorTaints = constraint.nodeTaintsPolicy == "Honor";
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const std::string* value = label(n, constraint.topologyKey);
      if (value == nullptr || (honorAffinity && !state.affinityOk[n]) ||
          (honorTaints && untolerated(pod.spec.tolerations, nodes_[n].taints) != nullptr)) {
        continue;
      }
      spread.counts[*value] += c.perNode[n];
    }
    spread.min = INT_MAX;
    for (const auto& [domain, count] : spread.counts) {
      spread.min = std::min(spread.min, count);
    }
    if (spread.counts.empty() ||
        static_cast<int>(spread.counts.size()) < constraint.minDomains.value_or(1)) {
      spread.min = 0;
    }
    state.spread.push_back(std::move(spread));
  }
  return state;
}

std::vector<std::string> Planner::misfit(const Pod& pod, const PodState& state, int n) {
  const NodeInfo& info = nodes_[n];
  if (info.node->metadata.deletionTimestamp) {
    return {"node(s) were being deleted"};
  }
  if (const Taint* taint = untolerated(pod.spec.tolerations, info.taints)) {
    if (taint->key == kUnschedulableTaint) {
      return {"node(s) were unschedulable"};
    }
    return {fmt::format("node(s) had untolerated taint {{{}: {}}}", taint->key, taint->value)};
  }
  if (!state.affinityOk[n]) {
    return {"node(s) didn't match Pod's node affinity/selector"};
  }
  std::vector<std::string> insufficient;
  for (const auto& [resource, request] : state.requests) {
    auto it = info.free.find(resource);
    if (request > (it == info.free.end() ? 0 : it->second)) {
      insufficient.push_back(resourceMessage(resource));
    }
  }
  if (!insufficient.empty()) {
    return insufficient;
  }
  for (const auto& domains : state.antiOwn) {
    const std::string* value = label(n, domains.key);
    if (value != nullptr && domains.values.contains(*value)) {
      return {"node(s) didn't match pod anti-affinity rules"};
    }
  }
  for (const AntiGroup* group : state.antiExisting) {
    const std::string* value = label(n, group->topologyKey);
    if (value != nullptr && group->domains.contains(*value)) {
      return {"node(s) didn't satisfy existing pods anti-affinity rules"};
    }
  }
  if (!state.affinityAnywhere) {
    for (const auto& domains : state.affinity) {
      const std::string* value = label(n, domains.key);
      if (value == nullptr || !domains.values.contains(*value)) {
        return {"node(s) didn't match pod affinity rules"};
      }
    }
  }
  for (const auto& spread : state.spread) {
    const std::string* value = label(n, spread.key);
    if (value == nullptr) {
      return {"node(s) didn't match pod topology spread constraints (missing required label)"};
    }
    auto it = spread.counts.find(*value);
    const int count = it == spread.counts.end() ? 0 : it->second;
    if (count + spread.self - spread.min > spread.maxSkew) {
      return {"node(s) didn't match pod topology spread constraints"};
    }
  }
  return {};
}

void Planner::commit(const Pod& pod, int node, const Resources& requests) {
  subtract(nodes_[node].free, requests);
  placed_.emplace_back(&pod, node);
  for (auto& [key, c] : counters_) {
    if (c.filter.matches(pod)) {
      ++c.perNode[node];
    }
  }
  addAntiTerms(pod, node);
}

Planner::Placement Planner::place(const Pod& pod) {
  PodState state = prepare(pod);
  std::map<std::string, int> reasons;
  for (int n = 0; n < static_cast<int>(nodes_.size()); ++n) {
    auto why = misfit(pod, state, n);
    if (why.empty()) {
      commit(pod, n, state.requests);
      Placement placement;
      placement.node = nodes_[n].node->metadata.name;
      return placement;
    }
    for (auto& reason : why) {
      ++reasons[reason];
    }
  }
  Placement placement;
  if (nodes_.empty()) {
    placement.reason = "no nodes available to schedule pods";
    return placement;
  }
  placement.reason = fmt::format("0/{} nodes are available: ", nodes_.size());
  bool first = true;
  for (const auto& [reason, count] : reasons) {
    placement.reason += fmt::format("{}{} {}", first ? "" : ", ", count, reason);
    first = false;
  }
  placement.reason += ".";
  return placement;
}

}  // namespace nodewright::emulators::kubelet
