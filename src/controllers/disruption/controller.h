#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/disruption/candidates.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/disruption/orchestrator.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// The disruption controller, as Karpenter's: a singleton pass that first moves every command in
// flight on, then starts new ones for drifted, expired and empty nodes as far as each NodePool's
// budgets allow, one budget's worth at a time. With consolidation on, a pass that started
// nothing else decides one consolidation (consolidation.h), and a later pass at least 15 s on
// re-validates it against the cluster as it is then and starts its commands, replace first.
namespace nodewright::controllers::disruption {

struct DisruptionOptions {
  // How often a pass runs while nothing triggers one (Karpenter polls every 10 s).
  std::chrono::seconds pollInterval{10};
  OrchestratorOptions orchestration;
  // Consolidation of underutilized nodes by simulation, on as in Karpenter (each NodePool's
  // consolidationPolicy and consolidateAfter decide; the v1 default is WhenEmptyOrUnderutilized
  // after 0s). Off: only the emptiness above.
  bool consolidation = true;
  ConsolidationOptions consolidationOptions;
};

// What a pass did, for tests and logs.
struct PassReport {
  std::vector<std::string> started;  // candidate NodeClaims
  std::vector<std::string> deleted;  // candidates whose deletion was issued
  std::vector<std::string> gaveUp;
  std::vector<std::string> blocked;  // by do-not-disrupt, budgets or unschedulable pods
  size_t inFlight = 0;               // commands still running after the pass
  // What consolidation did: "decided: ...", "waiting to re-validate: ...", "stale: ...",
  // "started: ...", or "" when it did not run or found nothing.
  std::string consolidation;
};

class DisruptionController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "disruption";
  static constexpr const char* kSingletonKey = "disruption";

  // `events` may be null. Everything must outlive the controller.
  DisruptionController(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
                       runtime::EventRecorder* events, runtime::Registry& metrics,
                       DisruptionOptions options = {});

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;
  // Registers with `manager`: NodeClaim, Node and NodePool changes trigger a pass (and the
  // poll interval); passes read the manager's informer caches. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);
  // One pass over `caches`.
  core::Result<PassReport> disrupt(const provisioning::ClusterCaches& caches,
                                   runtime::Context& context);

 private:
  // Consolidation's part of a pass: re-validate and start the decision of an earlier pass, or
  // decide one.
  void consolidate(const provisioning::ClusterCaches& caches, const ClusterView& view,
                   PassReport& report, runtime::Context& context,
                   std::set<std::string>& startedNodes);
  void startConsolidation(const provisioning::ClusterCaches& caches, const ClusterView& view,
                          const Decision& decision, PassReport& report, runtime::Context& context,
                          std::set<std::string>& startedNodes);
  // A multi-node replacement: one command per candidate, the first leading (command.h).
  void startGroup(const provisioning::ClusterCaches& caches, const ClusterView& view,
                  const Decision& decision, const std::string& capacityType,
                  PassReport& report, runtime::Context& context,
                  std::set<std::string>& startedNodes);
  // Emptiness timers: when each claim's node was last seen with pods.
  void observe(const ClusterView& view);
  std::optional<core::TimePoint> lastPodSeen(const std::string& claim);

  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  const DisruptionOptions options_;
  const core::TimePoint startedAt_;
  Orchestrator orchestrator_;
  provisioning::ClusterCaches caches_;
  runtime::Family<runtime::Gauge>& allowed_;
  runtime::Family<runtime::Gauge>& eligible_;
  runtime::Family<runtime::Counter>& timeouts_;
  const kube::Cache* pdbs_ = nullptr;  // set by setup() when consolidating
  std::mutex mu_;
  std::map<std::string, core::TimePoint> lastPodSeen_;  // GUARDED_BY(mu_)
  // consolidateAfter's clock: each claim's pods (uids, sorted) and when that set last changed.
  std::map<std::string, std::pair<std::vector<std::string>, core::TimePoint>>
      podChanges_;  // GUARDED_BY(mu_)
  // The decision awaiting re-validation; in memory only: after a restart it is decided again.
  std::optional<DecisionRecord> pending_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::disruption
