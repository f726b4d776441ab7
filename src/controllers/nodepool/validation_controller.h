#pragma once

#include <string>

#include "api/karpenter/nodepool.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// Karpenter's nodepool.validation controller: what the CRD cannot check at admission (label and
// taint key syntax, duplicate taints, restricted and well-known labels and values; see
// api/karpenter/runtime_validation.h) is checked here and reported on the NodePool as the
// ValidationSucceeded condition: True, or False with reason NodePoolValidationFailed and the
// problems as its message. Status is written only when the condition changes.
namespace nodewright::controllers::nodepool {

inline constexpr const char* kValidationSucceeded = "ValidationSucceeded";
inline constexpr const char* kValidationFailedReason = "NodePoolValidationFailed";

// Thread-safe as the runtime uses it. `client` and `pools` (the NodePool cache) must outlive it.
class ValidationController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "nodepool.validation";

  ValidationController(kube::Client& client, const kube::Cache& pools);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles NodePools on their own events. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  kube::Client& client_;
  const kube::Cache& pools_;
};

}  // namespace nodewright::controllers::nodepool
