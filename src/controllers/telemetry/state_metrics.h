#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "kube/cache.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// The gauges Karpenter derives from cluster state (pkg/controllers/metrics/{node,nodepool,pod}
// and pkg/controllers/state/metrics.go), recomputed here from the manager's informer caches,
// which are this process's cluster state: per node, its allocatable, system overhead, pod and
// DaemonSet requests and limits and its age; per NodePool, its usage and limits; per pod, its
// state, and how long it took to be bound and to start; for the cluster, utilisation, node
// count and whether the caches are synced. One singleton reconcile on any Node, Pod, NodeClaim
// or NodePool event, and every kResync so ages keep moving, as upstream's singleton controllers
// requeue. Series of objects that are gone are removed.
namespace nodewright::controllers::telemetry {

// The node metrics' label names: node_name, phase, managed, then one per well-known node label
// (the part after '/', snake_case) in Karpenter's and the AWS provider's WellKnownLabels.
const std::vector<std::string>& nodeMetricLabelNames();
// karpenter_pods_state's label names.
const std::vector<std::string>& podStateLabelNames();

// Thread-safe as the runtime uses it (one worker). The caches and `registry` must outlive it.
class StateMetricsController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "metrics.state";
  static constexpr std::chrono::seconds kResync{5};

  struct Caches {
    const kube::Cache& nodes;
    const kube::Cache& pods;
    const kube::Cache& nodeClaims;
    const kube::Cache& nodePools;
  };
  // Registers every family at once, before the first event.
  StateMetricsController(Caches caches, const core::Clock& clock, runtime::Registry& registry);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Watches the four kinds on `manager` and registers the controller. Before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  // A family whose children are the series set in the last pass; the rest are removed.
  class Series {
   public:
    explicit Series(runtime::Family<runtime::Gauge>& family) : family_(family) {}
    void set(const runtime::Labels& labels, double value);
    void endPass();

   private:
    runtime::Family<runtime::Gauge>& family_;
    std::set<runtime::Labels> previous_;
    std::set<runtime::Labels> current_;
  };

  void recordNodes(core::TimePoint now);
  void recordNodePools();
  void recordPods(core::TimePoint now);
  void recordClusterState();

  Caches caches_;
  const core::Clock& clock_;
  std::mutex mu_;  // one pass at a time; guards everything below
  Series allocatable_;
  Series podRequests_;
  Series podLimits_;
  Series daemonRequests_;
  Series daemonLimits_;
  Series overhead_;
  Series lifetime_;
  Series utilization_;
  Series poolUsage_;
  Series poolLimit_;
  Series podState_;
  Series unstarted_;
  Series unbound_;
  runtime::Family<runtime::Summary>& startup_;
  runtime::Family<runtime::Histogram>& bound_;
  runtime::Gauge& nodeCount_;
  runtime::Gauge& synced_;
  runtime::Gauge& unsyncedSeconds_;
  std::set<std::string> pending_;      // pods seen Pending: their startup is measured once Ready
  std::set<std::string> unscheduled_;  // pods seen unbound: their binding is measured
};

}  // namespace nodewright::controllers::telemetry
