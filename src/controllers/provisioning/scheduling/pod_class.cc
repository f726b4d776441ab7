#include "controllers/provisioning/scheduling/pod_class.h"

#include <algorithm>

namespace nodewright::controllers::provisioning::scheduling {
namespace {

using api::corev1::Pod;
using api::corev1::PodAffinityTerm;
using api::corev1::WeightedPodAffinityTerm;

void append(std::string& out, const std::vector<std::string>& values) {
  for (const auto& v : values) {
    out += v;
    out += ',';
  }
  out += ';';
}

void append(std::string& out, const api::LabelSelector& s) {
  out += api::formatSelector(s);
  out += ';';
}

void append(std::string& out, const api::corev1::NodeSelectorTerm& t) {
  for (const auto& e : t.matchExpressions) {
    out += e.key + " " + e.operator_ + " ";
    append(out, e.values);
  }
  for (const auto& e : t.matchFields) {
    out += e.key + " " + e.operator_ + " ";
    append(out, e.values);
  }
  out += '|';
}

void append(std::string& out, const PodAffinityTerm& t) {
  out += t.topologyKey + ":";
  if (t.labelSelector) {
    append(out, *t.labelSelector);
  }
  append(out, t.namespaces);
  if (t.namespaceSelector) {
    append(out, *t.namespaceSelector);
  }
  append(out, t.matchLabelKeys);
  append(out, t.mismatchLabelKeys);
}

template <class Affinity>
void appendPodAffinity(std::string& out, const std::optional<Affinity>& a) {
  if (!a) {
    return;
  }
  for (const auto& t : a->requiredDuringSchedulingIgnoredDuringExecution) {
    append(out, t);
  }
  out += '/';
  for (const auto& t : a->preferredDuringSchedulingIgnoredDuringExecution) {
    out += std::to_string(t.weight) + "=";
    append(out, t.podAffinityTerm);
  }
}

// Preferred terms sorted heaviest first (stable), as Karpenter relaxes the lightest first.
template <class T>
std::vector<const T*> byWeight(const std::vector<T>& terms) {
  std::vector<const T*> out;
  for (const auto& t : terms) {
    out.push_back(&t);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const T* a, const T* b) { return a->weight > b->weight; });
  return out;
}

std::vector<const api::corev1::NodeSelectorTerm*> requiredTerms(const Pod& pod) {
  std::vector<const api::corev1::NodeSelectorTerm*> out;
  const auto& a = pod.spec.affinity;
  if (a && a->nodeAffinity && a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    for (const auto& t :
         a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
      out.push_back(&t);
    }
  }
  return out;
}

const api::corev1::PodAffinity* podAffinity(const Pod& pod) {
  static const api::corev1::PodAffinity kNone;
  const auto& a = pod.spec.affinity;
  return a && a->podAffinity ? &*a->podAffinity : &kNone;
}

const api::corev1::PodAntiAffinity* podAntiAffinity(const Pod& pod) {
  static const api::corev1::PodAntiAffinity kNone;
  const auto& a = pod.spec.affinity;
  return a && a->podAntiAffinity ? &*a->podAntiAffinity : &kNone;
}

std::vector<const api::corev1::TopologySpreadConstraint*> spreads(const Pod& pod,
                                                                  size_t anywayDropped) {
  std::vector<const api::corev1::TopologySpreadConstraint*> out;
  size_t anyway = 0;
  for (const auto& c : pod.spec.topologySpreadConstraints) {
    if (c.whenUnsatisfiable == "ScheduleAnyway" && anyway++ < anywayDropped) {
      continue;
    }
    out.push_back(&c);
  }
  return out;
}

size_t scheduleAnywayCount(const Pod& pod) {
  return std::count_if(pod.spec.topologySpreadConstraints.begin(),
                       pod.spec.topologySpreadConstraints.end(),
                       [](const auto& c) { return c.whenUnsatisfiable == "ScheduleAnyway"; });
}

// A selector with matchLabelKeys (In the pod's value) and mismatchLabelKeys (NotIn) folded in.
api::LabelSelector withLabelKeys(api::LabelSelector s, const Pod& pod,
                                 const std::vector<std::string>& match,
                                 const std::vector<std::string>& mismatch) {
  for (const auto* keys : {&match, &mismatch}) {
    for (const auto& k : *keys) {
      auto it = pod.metadata.labels.find(k);
      if (it != pod.metadata.labels.end()) {
        s.matchExpressions.push_back(
            {k, keys == &match ? api::kOpIn : api::kOpNotIn, {it->second}});
      }
    }
  }
  return s;
}

GroupSpec affinitySpec(GroupType type, const PodAffinityTerm& t, const Pod& pod) {
  GroupSpec s;
  s.type = type;
  s.key = t.topologyKey;
  s.hasSelector = t.labelSelector.has_value();
  if (t.labelSelector) {
    s.selector = withLabelKeys(*t.labelSelector, pod, t.matchLabelKeys, t.mismatchLabelKeys);
  }
  // An empty namespaceSelector selects every namespace; namespace labels are not known here,
  // so any other selector is read as the listed namespaces plus the pod's own.
  bool allNamespaces = t.namespaceSelector && t.namespaceSelector->empty();
  if (!allNamespaces) {
    s.namespaces = t.namespaces;
    if (s.namespaces.empty() || t.namespaceSelector) {
      s.namespaces.push_back(pod.metadata.namespace_);
    }
    std::sort(s.namespaces.begin(), s.namespaces.end());
  }
  return s;
}

}  // namespace

std::string constraintKey(const Pod& pod) {
  std::string out = pod.metadata.namespace_ + "#";
  for (const auto& [k, v] : pod.metadata.labels) {
    out += k + "=" + v + ",";
  }
  out += "#";
  for (const auto& [k, v] : pod.spec.nodeSelector) {
    out += k + "=" + v + ",";
  }
  out += "#";
  if (const auto& a = pod.spec.affinity) {
    if (a->nodeAffinity) {
      for (const auto* t : requiredTerms(pod)) {
        append(out, *t);
      }
      out += "/";
      for (const auto& p : a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution) {
        out += std::to_string(p.weight) + "=";
        append(out, p.preference);
      }
    }
    out += "#";
    appendPodAffinity(out, a->podAffinity);
    out += "#";
    appendPodAffinity(out, a->podAntiAffinity);
  }
  out += "#";
  for (const auto& t : pod.spec.tolerations) {
    out += t.key + "/" + t.operator_ + "/" + t.value + "/" + t.effect + ",";
  }
  out += "#";
  for (const auto& c : pod.spec.topologySpreadConstraints) {
    out += std::to_string(c.maxSkew) + c.topologyKey + c.whenUnsatisfiable +
           std::to_string(c.minDomains.value_or(-1)) + c.nodeAffinityPolicy;
    if (c.labelSelector) {
      append(out, *c.labelSelector);
    }
    append(out, c.matchLabelKeys);
  }
  return out;
}

PodClass* PodClasses::classOf(const Pod& pod) {
  std::string key = constraintKey(pod);
  auto it = byKey_.find(key);
  if (it != byKey_.end()) {
    return it->second;
  }
  Relaxation r;
  r.podAffinityKept = podAffinity(pod)->preferredDuringSchedulingIgnoredDuringExecution.size();
  r.podAntiAffinityKept =
      podAntiAffinity(pod)->preferredDuringSchedulingIgnoredDuringExecution.size();
  const auto& a = pod.spec.affinity;
  r.nodePreferencesKept =
      a && a->nodeAffinity ? a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.size()
                           : 0;
  PodClass* c = build(pod, r, key);
  byKey_.emplace(std::move(key), c);
  return c;
}

PodClass* PodClasses::relax(PodClass& c) {
  if (c.relaxed || c.fullyRelaxed) {
    return c.relaxed;
  }
  const Pod& pod = *c.exemplar;
  Relaxation r = c.relaxation;
  if (r.requiredTerm + 1 < requiredTerms(pod).size()) {
    ++r.requiredTerm;
  } else if (r.podAffinityKept > 0) {
    --r.podAffinityKept;
  } else if (r.podAntiAffinityKept > 0) {
    --r.podAntiAffinityKept;
  } else if (r.nodePreferencesKept > 0) {
    --r.nodePreferencesKept;
  } else if (r.scheduleAnywayDropped < scheduleAnywayCount(pod)) {
    ++r.scheduleAnywayDropped;
  } else if (!r.toleratePreferNoSchedule) {
    r.toleratePreferNoSchedule = true;
  } else {
    c.fullyRelaxed = true;
    return nullptr;
  }
  c.relaxed = build(pod, r, "");
  c.relaxed->selecting = c.selecting;
  c.relaxed->selectedByAnti = c.selectedByAnti;
  return c.relaxed;
}

PodClass* PodClasses::build(const Pod& pod, const Relaxation& r, const std::string&) {
  auto c = std::make_unique<PodClass>();
  c->id = static_cast<int>(classes_.size());
  c->exemplar = &pod;
  c->relaxation = r;

  Requirements reqs = Requirements::fromSelector(pod.spec.nodeSelector);
  auto required = requiredTerms(pod);
  if (r.requiredTerm < required.size()) {
    reqs.add(Requirements::fromTerm(*required[r.requiredTerm]));
  }
  const auto& a = pod.spec.affinity;
  if (a && a->nodeAffinity && r.nodePreferencesKept > 0) {
    // The heaviest preference still kept is treated as required.
    auto prefs = byWeight(a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution);
    reqs.add(Requirements::fromTerm(prefs[0]->preference));
  }
  c->requirements = reqs_.intern(reqs);

  c->tolerations = pod.spec.tolerations;
  if (r.toleratePreferNoSchedule) {
    api::corev1::Toleration t;
    t.operator_ = api::corev1::kTolerationOpExists;
    t.effect = api::corev1::kTaintEffectPreferNoSchedule;
    c->tolerations.push_back(t);
  }

  auto own = [&](const GroupSpec& spec) {
    Topology::Owned o;
    o.group = topology_.group(spec);
    o.selfSelecting = topology_.selects(o.group, pod.metadata.namespace_, pod.metadata.labels);
    if (const Requirement* d = reqs.get(spec.key)) {
      o.podDomains = *d;
    }
    c->owned.push_back(o);
  };
  for (const auto* s : spreads(pod, r.scheduleAnywayDropped)) {
    GroupSpec spec;
    spec.type = GroupType::Spread;
    spec.key = s->topologyKey;
    spec.maxSkew = std::max(1, s->maxSkew);
    spec.minDomains = s->minDomains;
    spec.hasSelector = s->labelSelector.has_value();
    if (s->labelSelector) {
      spec.selector = withLabelKeys(*s->labelSelector, pod, s->matchLabelKeys, {});
    }
    spec.namespaces = {pod.metadata.namespace_};
    own(spec);
  }
  auto ownAffinity = [&](GroupType type, const auto* affinity, size_t kept) {
    for (const auto& t : affinity->requiredDuringSchedulingIgnoredDuringExecution) {
      own(affinitySpec(type, t, pod));
    }
    auto prefs = byWeight(affinity->preferredDuringSchedulingIgnoredDuringExecution);
    for (size_t i = 0; i < kept && i < prefs.size(); ++i) {
      own(affinitySpec(type, prefs[i]->podAffinityTerm, pod));
    }
  };
  ownAffinity(GroupType::Affinity, podAffinity(pod), r.podAffinityKept);
  ownAffinity(GroupType::AntiAffinity, podAntiAffinity(pod), r.podAntiAffinityKept);
  classes_.push_back(std::move(c));
  return classes_.back().get();
}

std::vector<int> PodClasses::antiAffinityGroups(const Pod& pod) {
  std::vector<int> out;
  for (const auto& t : podAntiAffinity(pod)->requiredDuringSchedulingIgnoredDuringExecution) {
    out.push_back(topology_.group(affinitySpec(GroupType::AntiAffinity, t, pod)));
  }
  return out;
}

void PodClasses::resolve(PodClass& c) {
  c.selecting.clear();
  c.selectedByAnti.clear();
  const Pod& pod = *c.exemplar;
  for (size_t g = 0; g < topology_.groupCount(); ++g) {
    if (topology_.selects(static_cast<int>(g), pod.metadata.namespace_, pod.metadata.labels)) {
      c.selecting.push_back(static_cast<int>(g));
      if (topology_.spec(static_cast<int>(g)).type == GroupType::AntiAffinity) {
        c.selectedByAnti.push_back(static_cast<int>(g));
      }
    }
  }
}

void PodClasses::resolveSelectors() {
  for (auto& c : classes_) {
    resolve(*c);
  }
}

}  // namespace nodewright::controllers::provisioning::scheduling
