#pragma once

#include <set>
#include <string>

#include "api/core/affinity.h"
#include "api/core/pod.h"
#include "api/labels.h"

// The pods a pod (anti-)affinity term or a topology spread constraint counts.
namespace nodewright::emulators::kubelet {

struct PodFilter {
  std::set<std::string> namespaces;  // empty: every namespace
  api::LabelSelector selector;
  bool selects = true;           // false: an absent selector, which selects nothing
  bool skipTerminating = false;  // topology spread ignores pods being deleted

  bool matches(const api::corev1::Pod& pod) const;
  // Identifies the filter, so pods counted for one term are counted once for all its users.
  std::string key() const;
};

// A required (anti-)affinity term of `owner`: its namespaces (the owner's by default; a
// namespace selector, which needs Namespace objects to evaluate, is taken as every namespace)
// and its selector with matchLabelKeys and mismatchLabelKeys applied from the owner's labels.
PodFilter filterOf(const api::corev1::PodAffinityTerm& term, const api::corev1::Pod& owner);
// A topology spread constraint of `owner`: pods of its namespace, not being deleted.
PodFilter filterOf(const api::corev1::TopologySpreadConstraint& constraint,
                   const api::corev1::Pod& owner);

}  // namespace nodewright::emulators::kubelet
