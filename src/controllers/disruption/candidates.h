#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/object.h"
#include "controllers/disruption/budgets.h"
#include "controllers/disruption/command.h"
#include "controllers/provisioning/cluster_snapshot.h"

// What disruption sees of the cluster: each NodeClaim with its Node, pods and command, which of
// them are candidates and why, and what each NodePool's budgets allow now. Pure over a copy of
// the informer caches, so the controller and `nodewright disruption plan` decide alike.
namespace nodewright::controllers::disruption {

struct ClaimView {
  const api::karpenter::NodeClaim* claim = nullptr;
  const api::corev1::Node* node = nullptr;  // nullptr until registered
  std::string pool;
  std::vector<const api::corev1::Pod*> pods;  // bound and reschedulable
  std::optional<Command> command;
  // A record that cannot be read: the claim is left alone (not resumed, not started again).
  bool unreadableCommand = false;
  std::string replaces;      // the candidate this claim replaces, if it is a replacement
  std::string doNotDisrupt;  // why voluntary disruption is blocked ("pod default/db-0 ..."), or ""
  bool deleting = false;
  bool initialized = false;
  bool ready = false;  // the Node's Ready condition
  core::TimePoint initializedAt;
};

class ClusterView {
 public:
  explicit ClusterView(const provisioning::ClusterCaches& caches);
  const std::vector<ClaimView>& claims() const { return claims_; }
  const ClaimView* claim(const std::string& name) const;
  const api::karpenter::NodePool* pool(const std::string& name) const;
  const std::map<std::string, const api::karpenter::NodePool*>& pools() const { return pools_; }
  // Pods not bound to a node yet: an empty node may be where they are headed.
  size_t unboundPods() const { return unboundPods_; }

 private:
  std::vector<api::Object> keep_;
  std::vector<ClaimView> claims_;
  std::map<std::string, size_t> byName_;
  std::map<std::string, const api::karpenter::NodePool*> pools_;
  size_t unboundPods_ = 0;
};

struct Candidate {
  const ClaimView* view = nullptr;
  std::string reason;  // kReasonDrifted | kReasonExpired | kReasonEmpty | kReasonUnderutilized
  std::string why;     // the Drifted message, "expired 2h ago (expireAfter 720h)", ...
  // Consolidation's decision (Command's fields of the same names): the replacement's allowed
  // types and capacity type, and the consolidation type for the decision metrics.
  std::vector<std::string> instanceTypes;
  std::string capacityType;
  std::string consolidationType;
};

// Empty-node bookkeeping the view cannot know: when a node was last seen with pods. Nullopt:
// not known, so the node counts as empty since it was initialized.
using LastPodSeen = std::function<std::optional<core::TimePoint>(const std::string& claim)>;

// A node just up is empty until the scheduler binds the pods it was launched for: emptiness is
// counted from no earlier than this after its initialization, and not at all while pods wait
// unbound (Karpenter keeps nominated nodes out of consolidation for the same reason).
inline constexpr auto kEmptyGrace = std::chrono::seconds(30);

// Candidates in the order they are taken: empty first (nothing to move), then drifted, then
// expired, oldest first within a reason. Claims in a command, deleting, not initialized, or the
// replacements of a command in flight are never candidates; do-not-disrupt blocks drift and
// emptiness but not expiry, which is forceful as in Karpenter v1 (`blocked` lists the rest).
struct Candidates {
  std::vector<Candidate> ready;
  std::vector<std::pair<Candidate, std::string>> blocked;
};
Candidates findCandidates(const ClusterView& view, core::TimePoint now,
                          const LastPodSeen& lastPodSeen);

// The simulation of replacing `claim`: its node's pods to place, its node and the other
// commands' candidates excluded as destinations.
provisioning::DisruptionScope disruptionScope(const ClusterView& view, const ClaimView& claim);

// A pool's disruption room for a reason: its budgets' verdict over the pool's nodes (the
// replacements of commands in flight are not yet its nodes), less the nodes already disrupting
// (in a command, deleting, not initialized or NotReady).
struct PoolBudget {
  int nodes = 0;
  int disrupting = 0;
  BudgetVerdict verdict;
  int room() const { return std::max(0, verdict.allowed - disrupting); }
};
core::Result<PoolBudget> poolBudget(const ClusterView& view, const std::string& pool,
                                    std::string_view reason, core::TimePoint now);

}  // namespace nodewright::controllers::disruption
