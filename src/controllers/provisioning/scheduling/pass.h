#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "controllers/provisioning/scheduling/catalog.h"
#include "controllers/provisioning/scheduling/pod_class.h"
#include "controllers/provisioning/scheduling/scheduler.h"

// One scheduling pass: the state schedule() builds and walks. Internal to the scheduler.
namespace nodewright::controllers::provisioning::scheduling {

// An existing node or in-flight claim as the pass fills it.
struct NodeState {
  const ExistingNode* node = nullptr;
  Vec remaining;  // allocatable - requested
  std::vector<api::corev1::Taint> taints;
  std::vector<std::vector<int>> domains;  // per topology key: its domain, or none
};

// A NodeClaim opened in this pass.
struct Claim {
  size_t pool = 0;
  int reqs = 0;  // interned requirements
  Bits types;    // the pool's types still able to hold every pod under reqs
  Vec requests;  // pods + DaemonSet overhead
  Vec maxAlloc;  // the largest allocatable among `types`, per resource
  Vec charged;   // what was counted against the pool's limits
  int host = -1;
  std::vector<const api::corev1::Pod*> pods;
};

// What placing a pod on a claim would make of it.
struct ClaimPlan {
  int reqs = 0;
  Bits types;
  Vec requests;
};

class Pass {
 public:
  Pass(const Input& input, const Options& options);
  Results run();

 private:
  using Verdict = Topology::Verdict;

  // Setup (pass.cc).
  void index();
  void seedTopology();
  std::vector<size_t> order() const;
  bool daemonRuns(const api::corev1::Pod& ds, const PoolCatalog& pool);

  // Placement (placement.cc), in the order tried.
  bool placeOnNode(size_t pod, PodClass& c);
  bool placeOnClaim(size_t pod, PodClass& c);
  bool placeOnNewClaim(size_t pod, PodClass& c, std::string& why);
  Verdict checkNode(NodeState& n, size_t pod, const PodClass& c);
  Verdict checkClaim(const Claim& claim, size_t pod, const PodClass& c, ClaimPlan& plan,
                     std::string* why);
  void commitClaim(size_t k, size_t pod, const PodClass& c, ClaimPlan&& plan);
  bool tolerates(PodClass& c, size_t pool);
  const std::vector<int>& claimDomains(int host, int reqs, int key);
  int narrowTo(int key, const std::vector<int>& ids);

  // Results (pass.cc).
  NewNodeClaim toNodeClaim(const Claim& claim);
  std::string podKey(size_t pod) const;

  const Input& input_;
  const Options& options_;
  ResourceIndex resources_;
  ReqTable reqs_;
  Topology topology_;
  PodClasses classes_{reqs_, topology_};
  std::vector<std::unique_ptr<PoolCatalog>> pools_;
  std::vector<NodeState> nodes_;
  std::vector<Claim> claims_;
  Bits openClaims_;
  Vec smallestPod_;  // the least any pending pod asks for, per resource
  std::vector<Vec> requests_;
  std::vector<PodClass*> class_;
  int hostKey_ = 0;
  std::unordered_map<uint64_t, std::vector<int>> claimDomains_;
  std::unordered_map<std::string, int> narrowings_;
  std::vector<Topology::Narrowing> narrow_;  // scratch
  Results results_;
};

}  // namespace nodewright::controllers::provisioning::scheduling
