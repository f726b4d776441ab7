#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/disruption/candidates.h"
#include "controllers/disruption/orchestrator.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// The disruption controller, as Karpenter's: a singleton pass that first moves every command in
// flight on, then starts new ones for drifted, expired and empty nodes as far as each NodePool's
// budgets allow, one budget's worth at a time.
namespace nodewright::controllers::disruption {

struct DisruptionOptions {
  // How often a pass runs while nothing triggers one (Karpenter polls every 10 s).
  std::chrono::seconds pollInterval{10};
  OrchestratorOptions orchestration;
};

// What a pass did, for tests and logs.
struct PassReport {
  std::vector<std::string> started;  // candidate NodeClaims
  std::vector<std::string> deleted;  // candidates whose deletion was issued
  std::vector<std::string> gaveUp;
  std::vector<std::string> blocked;  // by do-not-disrupt, budgets or unschedulable pods
  size_t inFlight = 0;               // commands still running after the pass
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
  // Emptiness timers: when each claim's node was last seen with pods.
  void observe(const ClusterView& view);
  std::optional<core::TimePoint> lastPodSeen(const std::string& claim);

  const core::Clock& clock_;
  const DisruptionOptions options_;
  const core::TimePoint startedAt_;
  Orchestrator orchestrator_;
  provisioning::ClusterCaches caches_;
  runtime::Family<runtime::Gauge>& allowed_;
  runtime::Family<runtime::Gauge>& eligible_;
  std::mutex mu_;
  std::map<std::string, core::TimePoint> lastPodSeen_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::disruption
