#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "controllers/nodeclaim/drain.h"
#include "controllers/nodeclaim/metrics.h"
#include "controllers/nodeclaim/options.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/events.h"
#include "runtime/reconciler.h"

// The NodeClaim lifecycle, as Karpenter v1's nodeclaim/lifecycle controller: it owns a claim
// from its finalizer to its machine's termination. Launched (the cloud made the machine),
// Registered (its Node joined and carries the claim's labels, taints and owner), Initialized
// (the Node is Ready, its startup taints are gone, its extended resources are advertised), then
// Ready. A claim whose Node never registers is deleted after registrationTTL. A deleted claim
// is drained (termination.cc), its machine terminated and awaited, then released.
// Invariant: the finalizer is on the claim before any machine can exist for it, and leaves
// only once the cloud reports the machine gone.
namespace nodewright::controllers::nodeclaim {

// Thread-safe as the runtime uses it (one reconcile per key at a time). Every reference must
// outlive it; `nodes` is the Node informer's cache; `events` may be null.
class LifecycleController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeclaim.lifecycle";

  LifecycleController(kube::Client& client, cloud::CloudProvider& cloud, const kube::Cache& nodes,
                      const core::Clock& clock, runtime::EventRecorder* events, Metrics& metrics,
                      Drainer& drainer, const Options& options);

  // runtime::Reconciler
  //   deleting: finalize (drain, terminate, release);
  //   live: finalizer, launch, registration, initialization, registration timeout, one status
  //   write when something changed.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

 private:
  using NodeClaim = api::karpenter::NodeClaim;
  using Node = api::corev1::Node;

  // What a phase tells the reconcile: when to look again, and whether the claim is gone
  // (deleted by the phase) so nothing more is written.
  struct Step {
    std::optional<std::chrono::nanoseconds> after;
    bool stop = false;
  };

  core::Result<Step> launch(NodeClaim& claim, runtime::Context& context);  // launch.cc
  // registration.cc: `node` receives the Node as written, for initialization.
  core::Result<Step> registration(NodeClaim& claim, std::optional<Node>& node);
  core::Result<Step> initialization(NodeClaim& claim, std::optional<Node> node);
  core::Result<Step> liveness(NodeClaim& claim);  // launch.cc
  void updateReady(NodeClaim& claim);
  runtime::Outcome writeStatus(const NodeClaim& before, const NodeClaim& claim,
                               runtime::Context& context);
  void countTransitions(const NodeClaim& before, const NodeClaim& claim);

  // termination.cc
  runtime::Outcome finalize(const NodeClaim& claim, runtime::Context& context);
  // A deleted claim without a provider ID: terminates any machine carrying its name first.
  runtime::Outcome finalizeUnrecorded(const NodeClaim& claim);
  core::Status taintNode(const Node& node);
  // True once the cloud reports the machine gone.
  core::Result<bool> terminateInstance(const NodeClaim& claim);
  core::Status releaseNode(const Node& node);
  runtime::Outcome releaseClaim(const NodeClaim& claim);

  std::optional<Node> nodeFor(const NodeClaim& claim) const;
  core::Status deleteClaim(const NodeClaim& claim);
  void event(const NodeClaim& claim, runtime::EventType type, const std::string& reason,
             const std::string& message);
  core::TimePoint now() const { return clock_.now(); }

  // Fixed after construction.
  kube::Client& client_;
  kube::Typed<NodeClaim> claims_;
  cloud::CloudProvider& cloud_;
  const kube::Cache& nodes_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  Metrics& metrics_;
  Drainer& drainer_;
  const Options options_;

  std::mutex mu_;
  // When a machine's removal was last sent, by provider ID, so a termination being awaited does
  // not send it again at every poll.
  std::map<std::string, core::TimePoint> removeSent_;  // GUARDED_BY(mu_)
};

// The nodepool a claim came from (its karpenter.sh/nodepool label), for metric labels.
std::string nodePoolOf(const api::karpenter::NodeClaim& claim);
bool hasFinalizer(const api::ObjectMeta& metadata);

}  // namespace nodewright::controllers::nodeclaim
