#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/pod.h"
#include "controllers/provisioning/scheduling/bits.h"
#include "controllers/provisioning/scheduling/req_table.h"
#include "controllers/provisioning/scheduling/topology.h"

// Pods that constrain placement alike (namespace, labels, node selector, affinity,
// tolerations, spread) form a class: the scheduler evaluates constraints once per class and
// remembers per class which nodes can never take it. Preferences are part of the class; when a
// pod fits nowhere it moves to a relaxed class (Karpenter's preferences.go order).
namespace nodewright::controllers::provisioning::scheduling {

// How far a pod's preferences have been relaxed.
struct Relaxation {
  size_t requiredTerm = 0;  // the required node affinity term in use (ORed terms, in order)
  size_t podAffinityKept = 0;
  size_t podAntiAffinityKept = 0;
  size_t nodePreferencesKept = 0;
  size_t scheduleAnywayDropped = 0;
  bool toleratePreferNoSchedule = false;
};

struct PodClass {
  int id = 0;
  const api::corev1::Pod* exemplar = nullptr;
  Relaxation relaxation;
  int requirements = 0;  // interned
  std::vector<api::corev1::Toleration> tolerations;
  std::vector<Topology::Owned> owned;
  std::vector<int> selecting;       // groups whose selector matches these pods
  std::vector<int> selectedByAnti;  // the anti-affinity ones among them
  PodClass* relaxed = nullptr;      // next relaxation, built on demand
  bool fullyRelaxed = false;
  // Nodes and claims that can never take a pod of this class.
  Bits neverNodes, neverClaims;
  // Per pool: -1 unknown, 0 no, 1 yes.
  std::vector<int8_t> toleratesPool;
};

// Builds and owns the classes of a pass. Not thread-safe.
class PodClasses {
 public:
  PodClasses(ReqTable& reqs, Topology& topology) : reqs_(reqs), topology_(topology) {}

  // The class of `pod` with no preference relaxed yet. Registers its topology groups.
  PodClass* classOf(const api::corev1::Pod& pod);
  // The next relaxation of `c`, or nullptr when nothing is left to relax.
  PodClass* relax(PodClass& c);
  // Fills `selecting` for every class; call once every group is known (and again for
  // classes made later, which reuse their base class's groups).
  void resolveSelectors();
  const std::vector<std::unique_ptr<PodClass>>& all() const { return classes_; }

  // The required anti-affinity terms of a pod already on a node, as groups it owns.
  std::vector<int> antiAffinityGroups(const api::corev1::Pod& pod);

 private:
  PodClass* build(const api::corev1::Pod& pod, const Relaxation& r, const std::string& key);
  void resolve(PodClass& c);

  ReqTable& reqs_;
  Topology& topology_;
  std::vector<std::unique_ptr<PodClass>> classes_;
  std::unordered_map<std::string, PodClass*> byKey_;
};

// A text identity of everything in a pod that constrains where it goes.
std::string constraintKey(const api::corev1::Pod& pod);

}  // namespace nodewright::controllers::provisioning::scheduling
