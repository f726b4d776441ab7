#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/karpenter/nodeclaim.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/reconciler.h"

// Karpenter's pod-events and consolidation sub-controllers of a NodeClaim, in one reconciler:
//   - status.lastPodEventTime moves to the latest PodScheduled transition of a pod on the
//     claim's Node, or to now when this process sees a pod leave (terminating, terminal or
//     gone) or arrive;
//   - the Consolidatable condition is True once the NodePool's consolidateAfter has passed since
//     then (since initialization when no pod event is known), and absent before, while the
//     claim is not Initialized, or when consolidateAfter is Never.
// Disruption's candidates read the condition (consolidation_candidates.h), so consolidateAfter
// survives a restart of the controller.
namespace nodewright::controllers::nodeclaim {

inline constexpr const char* kConsolidatable = "Consolidatable";

class ConsolidatableController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeclaim.consolidatable";

  // The caches are the informers' for NodeClaims, NodePools and Pods; all must outlive this.
  ConsolidatableController(kube::Client& client, const kube::Cache& claims,
                           const kube::Cache& pools, const kube::Cache& pods,
                           const core::Clock& clock);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

 private:
  // The pods staying on `nodeName` (uids, sorted) and their latest PodScheduled transition.
  std::pair<std::vector<std::string>, std::optional<core::TimePoint>> podsOn(
      const std::string& nodeName) const;

  kube::Client& client_;
  const kube::Cache& claims_;
  const kube::Cache& pools_;
  const kube::Cache& pods_;
  const core::Clock& clock_;
  std::mutex mu_;
  // The pods each claim's Node had at its last reconcile: a change is a pod event.
  std::map<std::string, std::vector<std::string>> seen_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::nodeclaim
