#pragma once

#include "api/core/node.h"
#include "api/karpenter/nodeclaim.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/events.h"
#include "runtime/reconciler.h"

// The Node side of termination. A Node deleted by someone else (kubectl delete node) is held by
// the karpenter.sh/termination finalizer registration put on it; this controller deletes the
// Node's NodeClaim, whose termination drains the Node, terminates the machine and then releases
// the Node. A Node whose NodeClaim is already gone is released at once.
namespace nodewright::controllers::nodeclaim {

// Thread-safe as the runtime uses it. `claims` is the NodeClaim informer's cache; every
// reference must outlive it; `events` may be null.
class NodeController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "node.termination";

  NodeController(kube::Client& client, const kube::Cache& claims, runtime::EventRecorder* events);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

 private:
  using Node = api::corev1::Node;
  using NodeClaim = api::karpenter::NodeClaim;

  // The claims of `node`: by its controller ownerReference, read from the server (a cache that
  // lags must not release a Node whose claim exists), and by provider ID.
  core::Result<std::vector<NodeClaim>> claimsOf(const Node& node);

  kube::Client& client_;
  kube::Typed<Node> nodes_;
  kube::Typed<NodeClaim> claims_;
  const kube::Cache& claimCache_;
  runtime::EventRecorder* events_;
};

}  // namespace nodewright::controllers::nodeclaim
