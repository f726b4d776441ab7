#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "controllers/disruption/candidates.h"
#include "controllers/provisioning/cluster_snapshot.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// Static NodePools (spec.replicas), as Karpenter's static provisioning and deprovisioning
// controllers: a static pool keeps exactly `replicas` NodeClaims whatever its pods ask for.
// Below, it creates NodeClaims from the pool's template, within limits.nodes; above, it deletes
// the surplus, least disruptive first: claims not launched yet, then empty nodes, then nodes
// by fewest pods (oldest first among equals), nodes with do-not-disrupt pods last. The
// provisioner never grows a static pool and consolidation never shrinks it; drift and expiry
// replace its nodes one for one (controllers/disruption/static_pools.h counts for both).
namespace nodewright::controllers::staticpool {

struct Options {
  // A look again with no event (a limit raised, a claim the cache lost).
  std::chrono::seconds resync{std::chrono::minutes(1)};
  // The drift hash new NodeClaims are stamped with.
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// What one reconcile of a pool decided, for tests and logs.
struct Decision {
  int64_t replicas = 0;
  int64_t live = 0;                  // NodeClaims counted toward replicas
  std::vector<std::string> created;  // NodeClaims created
  std::vector<std::string> deleted;  // NodeClaims whose deletion was issued
  bool atLimit = false;              // short of replicas, held by limits.nodes
};

// The claims of `pool` to delete to bring it down by `count`, in the order above. Claims in a
// disruption command, being deleted, or in `skip` (deletions the view does not show yet) are
// never chosen.
std::vector<const disruption::ClaimView*> surplus(const disruption::ClusterView& view,
                                                  const std::string& pool, int64_t count,
                                                  const std::set<std::string>& skip = {});

class StaticController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodepool.static";

  // `events` may be null. Everything must outlive the controller.
  StaticController(kube::Client& client, const core::Clock& clock, runtime::EventRecorder* events,
                   runtime::Registry& metrics, Options options = {});

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;
  // Registers with `manager`: a NodePool on its own events and on those of its NodeClaims.
  // Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

  // One reconcile of `pool` over `caches`.
  core::Result<Decision> converge(const provisioning::ClusterCaches& caches,
                                  const std::string& pool, runtime::Context& context);

 private:
  // What this process did that `view` does not show yet (the cache lags the API): claims of
  // `pool` created but not there, and claims deleted but shown live.
  int64_t unseen(const disruption::ClusterView& view, const std::string& pool);
  std::set<std::string> unseenDeletes(const disruption::ClusterView& view);
  void remember(const std::string& pool, const std::string& claim);
  void rememberDelete(const std::string& claim);

  kube::Typed<api::karpenter::NodeClaim> claims_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  const Options options_;
  provisioning::ClusterCaches caches_;
  runtime::Family<runtime::Counter>& created_;
  std::mutex mu_;
  // pool -> claim -> when created; GUARDED_BY(mu_)
  std::map<std::string, std::map<std::string, std::chrono::steady_clock::time_point>> recent_;
  std::map<std::string, std::chrono::steady_clock::time_point> deleted_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::staticpool
