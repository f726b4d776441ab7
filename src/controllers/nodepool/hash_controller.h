#pragma once

#include <optional>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// Karpenter's nodepool.hash controller: keeps karpenter.sh/nodepool-hash and -hash-version on
// each NodePool current, so the drift controller compares a claim's stamp with its pool's. On
// a hash-version change (an upgrade that hashes differently; absent counts as changed), the
// pool's claims are re-stamped first (restamp.h) and only then the pool's version moves on: a
// crash between the two leaves the version old, so the next reconcile re-stamps what is left.
// A spec change with the same version re-stamps nothing: that is what drift is for.
namespace nodewright::controllers::nodepool {

// Thread-safe as the runtime uses it. `client` and `pools` (the NodePool cache) must outlive it.
class HashController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodepool.hash";

  HashController(kube::Client& client, const kube::Cache& pools, api::karpenter::HashPolicy policy);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles NodePools on their own events. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  using NodePool = api::karpenter::NodePool;

  // An outcome that ends the reconcile (an error, leadership lost), or nullopt to go on.
  std::optional<runtime::Outcome> restampClaims(const NodePool& pool, runtime::Context& context);

  kube::Client& client_;
  kube::Typed<api::karpenter::NodeClaim> nodeClaims_;
  const kube::Cache& pools_;
  const api::karpenter::HashPolicy policy_;
};

}  // namespace nodewright::controllers::nodepool
