#include "emulators/kubelet/pod_filter.h"

namespace nodewright::emulators::kubelet {
namespace {

void addLabelKeys(api::LabelSelector& selector, const std::vector<std::string>& keys,
                  const api::Labels& labels, const char* op) {
  for (const auto& key : keys) {
    auto it = labels.find(key);
    if (it != labels.end()) {
      selector.matchExpressions.push_back({key, op, {it->second}});
    }
  }
}

}  // namespace

bool PodFilter::matches(const api::corev1::Pod& pod) const {
  if (!selects || (skipTerminating && pod.metadata.deletionTimestamp)) {
    return false;
  }
  if (!namespaces.empty() && !namespaces.contains(pod.metadata.namespace_)) {
    return false;
  }
  return api::matches(selector, pod.metadata.labels);
}

std::string PodFilter::key() const {
  std::string out;
  for (const auto& ns : namespaces) {
    out += ns + ",";
  }
  out += "|" + (selects ? api::formatSelector(selector) : std::string("<none>"));
  out += skipTerminating ? "|live" : "|all";
  return out;
}

PodFilter filterOf(const api::corev1::PodAffinityTerm& term, const api::corev1::Pod& owner) {
  PodFilter filter;
  if (!term.namespaces.empty()) {
    filter.namespaces.insert(term.namespaces.begin(), term.namespaces.end());
  } else if (!term.namespaceSelector) {
    filter.namespaces.insert(owner.metadata.namespace_);
  }
  filter.selects = term.labelSelector.has_value();
  if (filter.selects) {
    filter.selector = *term.labelSelector;
    addLabelKeys(filter.selector, term.matchLabelKeys, owner.metadata.labels, api::kOpIn);
    addLabelKeys(filter.selector, term.mismatchLabelKeys, owner.metadata.labels, api::kOpNotIn);
  }
  return filter;
}

PodFilter filterOf(const api::corev1::TopologySpreadConstraint& constraint,
                   const api::corev1::Pod& owner) {
  PodFilter filter;
  filter.namespaces.insert(owner.metadata.namespace_);
  filter.selects = constraint.labelSelector.has_value();
  if (filter.selects) {
    filter.selector = *constraint.labelSelector;
    addLabelKeys(filter.selector, constraint.matchLabelKeys, owner.metadata.labels, api::kOpIn);
  }
  filter.skipTerminating = true;
  return filter;
}

}  // namespace nodewright::emulators::kubelet
