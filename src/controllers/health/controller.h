#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "controllers/health/repair.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/controller.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// Node auto-repair (kubernetes-sigs/karpenter pkg/controllers/node/health, NodeRepair): a Node
// of a NodeClaim whose condition matches a repair policy for longer than the policy tolerates
// has its NodeClaim force-terminated: the claim is stamped with a termination timestamp of now
// (the drain ends at once, budgets and grace periods included, as for a node past its
// terminationGracePeriod) and deleted, so pending pods get a replacement.
//
// Nothing is repaired while more than 20% of the NodePool's nodes (the cluster's, for a claim
// without a NodePool) are unhealthy: replacing many nodes at once hints at a cause that new
// nodes share. A blocked repair is said in a NodeRepairBlocked event on the Node, the NodeClaim
// and the NodePool (upstream's), and in the NodePool's NodeRepairAllowed condition, which
// upstream lacks: False with reason NodeRepairBlocked and the counts while a due repair waits,
// True again once the NodePool's unhealthy nodes are within the limit.
//
// Invariant: a claim is deleted only after its toleration passed and while the limit holds;
// the decision is recomputed from the API objects at every reconcile (repair.h), so a restart
// neither forgets nor repeats a repair (deleting a deleting claim is a no-op). One key per Node.
namespace nodewright::controllers::health {

struct Options {
  std::vector<RepairPolicy> policies = awsRepairPolicies();
  // Emulated time (`nodewright up --time-scale`): tolerations and the recheck pass this many
  // times faster, as the emulators' latencies do. 1 is real time.
  double timeScale = 1;
  // How often a blocked repair is looked at again (other nodes may have recovered).
  std::chrono::seconds blockedRecheck = std::chrono::minutes(1);
};

// Thread-safe as the runtime uses it. `client`, `clock`, `events` (may be null) and `metrics`
// must outlive it.
class RepairController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "node.health";

  RepairController(kube::Client& client, const core::Clock& clock, runtime::EventRecorder* events,
                   runtime::Registry& metrics, Options options);

  // runtime::Reconciler: the Node's decision (repair.h), then its action.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Watches Nodes, and NodeClaims for their Nodes. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

  // The policies with tolerations in real time (divided by the time scale).
  const std::vector<RepairPolicy>& policies() const { return policies_; }

 private:
  using Node = api::corev1::Node;
  using NodeClaim = api::karpenter::NodeClaim;
  using NodePool = api::karpenter::NodePool;

  std::optional<NodeClaim> claimOf(const Node& node) const;
  // The nodes counted with `claim`'s: its NodePool's, or every node for a claim without one.
  std::vector<Node> peersOf(const NodeClaim& claim) const;
  runtime::Outcome block(const Node& node, const NodeClaim& claim, const Decision& decision,
                         runtime::Context& context);
  runtime::Outcome repair(const Node& node, const NodeClaim& claim, const Decision& decision,
                          runtime::Context& context);
  // Writes the NodePool's NodeRepairAllowed condition unless it already says so.
  core::Status setPoolCondition(const std::string& pool, bool allowed, const std::string& message,
                                runtime::Context& context);
  void event(const Node& node, const NodeClaim& claim, const std::optional<NodePool>& pool,
             const std::string& message);

  kube::Client& client_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  const std::vector<RepairPolicy> policies_;
  const std::chrono::nanoseconds blockedRecheck_;
  runtime::Family<runtime::Counter>& disrupted_;
  runtime::Family<runtime::Counter>& unhealthyDisrupted_;
  const kube::Cache* nodes_ = nullptr;   // set by setup()
  const kube::Cache* claims_ = nullptr;  // set by setup()
  const kube::Cache* pools_ = nullptr;   // set by setup()
};

// Reasons of the NodePool condition (kNodeRepairCondition) and of the event.
inline constexpr const char* kWithinLimitReason = "UnhealthyNodesWithinLimit";

}  // namespace nodewright::controllers::health
