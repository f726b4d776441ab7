#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "controllers/provisioning/batcher.h"
#include "controllers/provisioning/cluster_snapshot.h"
#include "kube/client.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// The provisioner, as Karpenter's: pending pods are batched, then one scheduling pass places
// them on the nodes and in-flight NodeClaims the cluster has and plans new NodeClaims for the
// rest, which it creates. The NodeClaim lifecycle controller launches them. A singleton: every
// trigger maps to the one key, so passes never overlap.
namespace nodewright::controllers::provisioning {

struct ProvisionerOptions {
  BatchWindows batch;
  PendingRule pendingRule = PendingRule::Unschedulable;
  // While pods are pending a pass runs again after this even when nothing else triggers one (a
  // limit raised, an offering back from a capacity shortage).
  std::chrono::seconds retryUnschedulable{30};
  // The drift hash new NodeClaims are stamped with.
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// What a pass did, for tests and logs.
struct PassSummary {
  size_t pendingPods = 0;
  size_t onExistingNodes = 0;
  size_t unschedulable = 0;
  std::vector<std::string> createdNodeClaims;
  double seconds = 0;  // the scheduling simulation alone
};

class Provisioner final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "provisioner";
  static constexpr const char* kSingletonKey = "provisioner";

  // `events` may be null (no events). Everything must outlive the provisioner.
  Provisioner(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
              runtime::EventRecorder* events, runtime::Registry& metrics,
              ProvisionerOptions options = {});

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Registers with `manager`: pod events trigger the batcher; passes read the manager's
  // informer caches. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

  // One pass now, ignoring the batch windows, over `caches`.
  core::Result<PassSummary> provision(const ClusterCaches& caches, runtime::Context& context);

 private:
  std::vector<api::karpenter::NodeClaim> recentClaims();
  // The cache has had the claim (it may be gone again by now): the cache's word counts from now
  // on, whether the informer told before or after create() returned.
  void seen(const std::string& claimName);
  // The same for the recent claims the snapshot's cache had.
  void seen(const ClusterSnapshot& snapshot);
  void createClaims(const ClusterSnapshot& snapshot, const scheduling::Results& results,
                    runtime::Context& context, PassSummary& summary);
  void podEvent(const ClusterSnapshot& snapshot, const std::string& podKey, runtime::EventType type,
                const std::string& reason, const std::string& message);

  kube::Typed<api::karpenter::NodeClaim> nodeClaims_;
  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  const ProvisionerOptions options_;
  Batcher batcher_;
  ClusterCaches caches_;

  runtime::Family<runtime::Histogram>& schedulingSeconds_;
  runtime::Family<runtime::Counter>& claimsCreated_;
  runtime::Family<runtime::Gauge>& unschedulablePods_;

  std::mutex mu_;
  struct Recent {
    api::karpenter::NodeClaim claim;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<Recent> recent_;  // GUARDED_BY(mu_): created, maybe not yet in the cache
  std::map<std::string, std::chrono::steady_clock::time_point> seen_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::provisioning
