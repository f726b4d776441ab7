#pragma once

#include <optional>
#include <string>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// Karpenter's nodeclass.hash controller (aws provider): keeps
// karpenter.k8s.aws/ec2nodeclass-hash and -hash-version on each EC2NodeClass current. On a
// hash-version change (absent counts as changed) the claims launched from the class are
// re-stamped first (controllers/nodepool/restamp.h, shared with nodepool.hash), then the
// class's version moves on; a spec change with the same version re-stamps nothing.
namespace nodewright::controllers::nodeclass {

// Whether `claim`'s spec.nodeClassRef names the EC2NodeClass `name` (an empty group or kind is
// taken as ours, as the provider does).
bool references(const api::karpenter::NodeClaim& claim, const std::string& name);

// Thread-safe as the runtime uses it. `client` and `nodeClasses` (the EC2NodeClass cache) must
// outlive it.
class HashController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodeclass.hash";

  HashController(kube::Client& client, const kube::Cache& nodeClasses,
                 api::karpenter::HashPolicy policy);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles EC2NodeClasses on their own events. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  using EC2NodeClass = api::karpenter::EC2NodeClass;

  // An outcome that ends the reconcile (an error, leadership lost), or nullopt to go on.
  std::optional<runtime::Outcome> restampClaims(const EC2NodeClass& nodeClass,
                                                runtime::Context& context);

  kube::Client& client_;
  kube::Typed<api::karpenter::NodeClaim> nodeClaims_;
  const kube::Cache& nodeClasses_;
  const api::karpenter::HashPolicy policy_;
};

}  // namespace nodewright::controllers::nodeclass
