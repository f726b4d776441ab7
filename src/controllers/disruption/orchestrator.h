#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "api/karpenter/hashing.h"
#include "cloud/cloud_provider.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/replacements.h"
#include "kube/client.h"
#include "runtime/events.h"
#include "runtime/metrics.h"

// Carries out disruption commands, replace-then-delete (Karpenter's orchestration queue), with
// the command recorded on the candidate before any side effect:
//   1. record the command (reason, replacement names) on the candidate NodeClaim;
//   2. taint its Node karpenter.sh/disrupted:NoSchedule;
//   3. create the replacements under the recorded names;
//   4. wait until every replacement is Initialized;
//   5. delete the candidate; the termination flow drains it within its PodDisruptionBudgets.
// A replacement that fails (deleted, launch refused, not Initialized in time) gives the command
// up: the taint, the record and the replacements go, the candidate stays. Nothing is ever
// deleted first.
namespace nodewright::controllers::disruption {

struct OrchestratorOptions {
  // A replacement not Initialized this long after the command started gives the command up.
  std::chrono::seconds replacementTimeout{std::chrono::minutes(15)};
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// What a start or a step did, for the pass's log and tests.
enum class Step { Waiting, Advanced, Deleted, GaveUp, Blocked };

class Orchestrator {
 public:
  // `events` may be null. Everything must outlive the orchestrator.
  Orchestrator(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
               runtime::EventRecorder* events, runtime::Registry& metrics,
               OrchestratorOptions options);

  // Starts a command for `candidate`: simulates its replacements, records the command and takes
  // it as far as it goes now. Blocked (with an event) when a pod would fit nowhere.
  // `startedNodes` holds the nodes of commands started since `view` was taken, which the view
  // cannot show yet. Once the command is recorded it counts as started (Advanced, Deleted),
  // even if a later step failed: the next pass resumes it.
  core::Result<Step> start(const provisioning::ClusterCaches& caches, const ClusterView& view,
                           const Candidate& candidate, const std::string& budget,
                           std::set<std::string>& startedNodes);
  // Starts a multi-node replacement: the pods of every candidate onto the rest of the cluster
  // plus the one new node consolidation decided on (command.h's lead and followers). The
  // followers' commands are recorded first, then the lead's; the lead creates the replacement.
  // Blocked when the pods now need other than one new node. Candidates share reason and
  // decision fields; the first is the lead.
  core::Result<Step> startGroup(const provisioning::ClusterCaches& caches, const ClusterView& view,
                                const std::vector<Candidate>& candidates,
                                const std::string& budget, std::set<std::string>& startedNodes);
  // Tells the claim's NodeClaim and Node why consolidation leaves it (an Unconsolidatable
  // event; the recorder folds repeats into one).
  void unconsolidatable(const ClaimView& claim, const std::string& why);
  // One step of the command `claim` carries.
  core::Result<Step> resume(const provisioning::ClusterCaches& caches, const ClusterView& view,
                            const ClaimView& claim);

 private:
  // The replacements `claim` needs: a static pool's node is replaced one for one from its
  // template; any other node by simulating where its pods would go (replacements.h).
  core::Result<Simulation> plan(const provisioning::ClusterCaches& caches, const ClusterView& view,
                                const ClaimView& claim, const provisioning::DisruptionScope& scope);
  core::Result<Step> launch(const provisioning::ClusterCaches& caches, const ClusterView& view,
                            const ClaimView& claim, Command command);
  core::Result<Step> awaitReplacements(const ClusterView& view, const ClaimView& claim,
                                       Command command);
  core::Result<Step> deleteCandidate(const ClaimView& claim, const Command& command);
  core::Result<Step> giveUp(const ClaimView& claim, const Command& command, const std::string& why);
  // The command's record on the candidate; false when the claim changed under us (deleted,
  // another command recorded), in which case nothing is done.
  core::Result<bool> record(const ClaimView& claim, const std::optional<Command>& command,
                            const std::optional<Command>& expected);
  core::Status taint(const ClaimView& claim, bool on);
  bool recentlyCreated(const std::string& name);
  void event(const ClaimView& claim, runtime::EventType type, const std::string& reason,
             const std::string& message);

  kube::Client& client_;
  kube::Typed<api::karpenter::NodeClaim> claims_;
  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  const OrchestratorOptions options_;
  runtime::Family<runtime::Counter>& disrupted_;
  runtime::Family<runtime::Counter>& decisions_;
  runtime::Family<runtime::Counter>& queueFailures_;
  runtime::Family<runtime::Counter>& claimsCreated_;
  std::mutex mu_;
  // Replacements this process created that the cache may not show yet.
  std::map<std::string, std::chrono::steady_clock::time_point> created_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::disruption
