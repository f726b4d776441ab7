#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/karpenter/nodepool.h"
#include "api/object.h"
#include "core/quantity.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// Karpenter's nodepool.counter controller: a NodePool's status.resources is what its nodes add
// up to (the sum of its NodeClaims' capacity, extended resources included, plus a "nodes"
// count) and status.nodes the number of those nodes. The provisioner holds a pool to its
// spec.limits with it. Counted, as Karpenter counts: NodeClaims that launched (they have a
// capacity) and are not being deleted, so a replacement can launch while the node it replaces
// drains. Status is written only when it changed.
namespace nodewright::controllers::nodepool {

// An index of the NodeClaim cache: by the karpenter.sh/nodepool label.
inline constexpr const char* kByNodePool = "karpenter.sh/nodepool";
void addNodePoolIndex(kube::Informer& nodeClaims);

struct PoolUsage {
  std::map<std::string, core::Quantity> resources;
  int64_t nodes = 0;
};

// What `claims` (NodeClaim objects of one pool) count for. cpu, memory, pods,
// ephemeral-storage and nodes are always present (zero when nothing counts).
PoolUsage usageOf(const std::vector<api::Object>& claims);

// Whether `status` already says `usage`.
bool reports(const api::karpenter::NodePoolStatus& status, const PoolUsage& usage);

// Thread-safe as the runtime uses it. `client`, `pools` and `claims` (the NodePool and
// NodeClaim caches; the latter indexed by addNodePoolIndex) must outlive it.
class CounterController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodepool.counter";

  CounterController(kube::Client& client, const kube::Cache& pools, const kube::Cache& claims);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles NodePools on their own events and on those of their NodeClaims (a claim
  // launching, changing pool or going away). Adds kByNodePool to the NodeClaim informer. Call
  // before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  kube::Client& client_;
  const kube::Cache& pools_;
  const kube::Cache& claims_;
};

}  // namespace nodewright::controllers::nodepool
