#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/future.h"
#include "core/time.h"
#include "lro/engine.h"
#include "lro/operation.h"
#include "lro/outcome.h"

// A CAPZ service (seed 004's ServiceReconciler): the resources of one Azure type an object needs,
// reconciled through the futures engine and reported in one `<Service>Ready` condition. An
// object's services form a graph by `dependsOn`; services with no path between them run in the
// same reconcile (the seed's "parallel reconciliation"), or one after another in CAPZ's order.
namespace nodewright::controllers::capz {

struct Service {
  std::string name;           // the futures' serviceName: "virtualnetworks", "publicips", ...
  std::string conditionType;  // "VNetReady"; empty: the service reports no condition
  // Every resource of the service; all of them start in the same reconcile.
  std::vector<std::shared_ptr<const lro::ResourceSpec>> specs;
  // Names of services that must be Done before this one starts (and, on delete, that this one
  // must be gone before they are deleted).
  std::vector<std::string> dependsOn;
  // Delete skips the service (its resources go with a managed resource group, or it is not
  // ours to delete).
  bool skipDelete = false;
};

enum class Order {
  Graph,   // every service whose dependencies are Done starts in the same reconcile
  Serial,  // CAPZ's order: the list's order, one service at a time
};

// What one pass over an object's services achieved.
struct Pass {
  // Every service Done (created/updated, or deleted for a delete pass).
  bool done = false;
  // Some service Failed: it needs a spec change (or, for a delete, the next pass retries).
  bool failed = false;
  std::string failureMessage;  // the first failure's message, naming the resource
  // When to look again while not done: the smallest requeue among services in flight.
  std::optional<std::chrono::milliseconds> requeueAfter;
  // Per service name, in the list's order, its aggregate outcome this pass (services that did
  // not start because a dependency is not Done are left out).
  std::vector<std::pair<std::string, lro::Outcome>> outcomes;
  // Done PUT results by resource id: what the cloud returned (ids, addresses, states).
  std::vector<std::pair<std::string, api::Json>> results;
};

struct RunnerOptions {
  Order order = Order::Graph;
  // Engine calls in flight at once within one pass (each on its own resource's records).
  int parallelism = 8;
};

// Runs services through the engine. Thread-safe: one runner serves every worker.
class ServiceRunner {
 public:
  ServiceRunner(lro::Engine& engine, const core::Clock& clock, RunnerOptions options = {});

  // createOrUpdate for every spec of every service that may start; sets each started service's
  // condition (updatePutStatus) and updates `futures` (the object's
  // status.longRunningOperationStates, converted to the engine's records and back).
  Pass reconcile(const std::vector<Service>& services, api::capz::Futures& futures,
                 std::vector<api::capi::CapiCondition>& conditions);
  // remove for every spec, in reverse dependency order (a service is deleted once every
  // service depending on it is gone); sets conditions with updateDeleteStatus.
  Pass remove(const std::vector<Service>& services, api::capz::Futures& futures,
              std::vector<api::capi::CapiCondition>& conditions);

  const RunnerOptions& options() const { return options_; }

 private:
  lro::Engine& engine_;
  const core::Clock& clock_;
  RunnerOptions options_;
};

}  // namespace nodewright::controllers::capz
