#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "cloud/cloud_provider.h"
#include "controllers/disruption/drift.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// Sets each launched NodeClaim's Drifted condition (seed 002), checking in order: the NodePool's
// static fields by hash, its requirements, then the cloud's node class checks (static by hash,
// then dynamic by resolution). The condition's reason is the first failing check's and its
// message names the fields with their old and new values. A claim that matches again loses the
// condition.
namespace nodewright::controllers::disruption {

struct DriftOptions {
  // Dynamic drift (a subnet retagged, a new image behind an alias) shows in the node class's
  // status, whose change triggers a check; this is the look again without one.
  std::chrono::seconds recheck{std::chrono::minutes(5)};
  int workers = 4;
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// Every check of `claim` in order, as `nodewright drift explain` prints them: the NodePool's, then
// the cloud's (left out when the cloud cannot be asked: the error says why).
struct DriftChecks {
  std::vector<cloud::DriftCheck> checks;
  std::optional<core::Error> cloudError;
};
DriftChecks checkDrift(const api::karpenter::NodeClaim& claim, const api::karpenter::NodePool& pool,
                       cloud::CloudProvider& cloud, const api::karpenter::HashPolicy& policy);
// The same with the pool's context built once for many claims.
DriftChecks checkDrift(const api::karpenter::NodeClaim& claim, const NodePoolDriftContext& pool,
                       cloud::CloudProvider& cloud, const api::karpenter::HashPolicy& policy);

// "NodeClass: spec.userData: \"a\" -> \"b\"", bounded to a condition message's size.
std::string driftMessage(const cloud::DriftCheck& check);

class DriftController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeclaim.drift";

  DriftController(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
                  runtime::EventRecorder* events, runtime::Registry& metrics,
                  DriftOptions options = {});

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;
  // Registers with `manager`: NodeClaims on their own events, all of a NodePool's on its
  // changes, and all of a node class's on changes of the objects `nodeClasses` watch (the
  // cloud's node class kinds, matched by spec.nodeClassRef kind and name).
  runtime::Controller& setup(runtime::Manager& manager,
                             const std::vector<kube::Informer*>& nodeClasses);

 private:
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  const DriftOptions options_;
  const kube::Cache* claims_ = nullptr;
  const kube::Cache* pools_ = nullptr;
  runtime::Family<runtime::Counter>& drifted_;
  // Per pool, by name: its context for its current (uid, resourceVersion), so the hash, the
  // requirements and the memo of diffs are shared by all its claims; and the last generation
  // whose change re-checked its claims.
  std::shared_ptr<const NodePoolDriftContext> contextFor(const api::Object& pool);
  std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::shared_ptr<const NodePoolDriftContext>>>
      contexts_;                                // GUARDED_BY(mu_)
  std::map<std::string, int64_t> generations_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::disruption
