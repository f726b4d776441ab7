#pragma once

#include <memory>

#include "cloud/cloud_provider.h"
#include "controllers/nodeclaim/consolidatable_controller.h"
#include "controllers/nodeclaim/drain.h"
#include "controllers/nodeclaim/lifecycle_controller.h"
#include "controllers/nodeclaim/metrics.h"
#include "controllers/nodeclaim/node_controller.h"
#include "controllers/nodeclaim/options.h"
#include "runtime/manager.h"

// Wires the NodeClaim lifecycle and Node termination controllers into a Manager.
namespace nodewright::controllers::nodeclaim {

// Owns the reconcilers the manager runs; keep it alive until manager.run() has returned.
class Controllers {
 public:
  Controllers(runtime::Manager& manager, cloud::CloudProvider& cloud, Options options);
  Controllers(const Controllers&) = delete;
  Controllers& operator=(const Controllers&) = delete;

  LifecycleController& lifecycle() { return lifecycle_; }
  NodeController& nodes() { return nodes_; }
  ConsolidatableController& consolidatable() { return consolidatable_; }

 private:
  const Options options_;
  Metrics metrics_;
  Drainer drainer_;
  LifecycleController lifecycle_;
  NodeController nodes_;
  ConsolidatableController consolidatable_;
};

// Registers the controllers with `manager` (before manager.run()): NodeClaims are reconciled
// on their own events, on their Node's (by provider ID) and, while terminating, on the events
// of the pods bound to their Node. The Consolidatable condition follows the pods of a claim's
// Node and its NodePool's consolidateAfter. Metrics go to manager.metrics(), time is manager.clock(),
// events go through manager.events(). `cloud` must outlive the returned object.
[[nodiscard]] std::unique_ptr<Controllers> setup(runtime::Manager& manager,
                                                 cloud::CloudProvider& cloud, Options options = {});

}  // namespace nodewright::controllers::nodeclaim
