#include "controllers/telemetry/state_metrics.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <string>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"

// The gauges derived from cluster state, after a known state, under Karpenter's names and
// labels: values per node and resource, per NodePool, per pod, and for the cluster; series of
// objects that are gone disappear; startup is measured from the pod's Ready transition.
namespace nodewright::controllers::telemetry {
namespace {

using namespace std::chrono_literals;
using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

core::Quantity q(const char* text) {
  return core::Quantity::parse(text).value();
}

template <class T>
api::Object object(const T& value) {
  return api::Object(&kube::kindOf<T>(), std::make_shared<T>(value));
}

class StateMetricsTest : public ::testing::Test {
 protected:
  StateMetricsTest() : controller_({nodes_, pods_, claims_, pools_}, clock_, registry_) {}

  void reconcile() {
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                             StateMetricsController::kName);
    auto outcome = controller_.reconcile({"", StateMetricsController::kName}, context);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->requeueAfter, StateMetricsController::kResync);
  }

  Node node(const std::string& name) {
    Node n;
    n.metadata.name = name;
    n.metadata.creationTimestamp = core::Time(clock_.now());
    n.metadata.labels = {{"karpenter.sh/nodepool", "default"},
                         {"topology.kubernetes.io/zone", "us-east-1a"},
                         {"node.kubernetes.io/instance-type", "m5.large"},
                         {"karpenter.sh/capacity-type", "on-demand"},
                         {"kubernetes.io/arch", "amd64"}};
    n.spec.providerID = "aws:///us-east-1a/i-" + name;
    n.status.capacity = {{"cpu", q("2")}, {"memory", q("8Gi")}, {"pods", q("29")}};
    n.status.allocatable = {{"cpu", q("1930m")}, {"memory", q("7Gi")}, {"pods", q("29")}};
    return n;
  }

  Pod pod(const std::string& name, const std::string& nodeName, const char* cpu) {
    Pod p;
    p.metadata.name = name;
    p.metadata.namespace_ = "default";
    p.metadata.creationTimestamp = core::Time(clock_.now());
    p.spec.nodeName = nodeName;
    api::corev1::Container container;
    container.name = "app";
    container.resources.requests = {{"cpu", q(cpu)}};
    container.resources.limits = {{"cpu", q("1")}};
    p.spec.containers.push_back(container);
    p.status.phase = nodeName.empty() ? "Pending" : "Running";
    return p;
  }

  // The value of the family's series whose labels include every (name, value) of `want`.
  double value(const std::string& family, const std::map<std::string, std::string>& want) {
    auto& f = registry_.gauge(family, "");
    for (const auto& [values, gauge] : f.children()) {
      bool all = true;
      for (const auto& [name, v] : want) {
        auto at = std::find(f.labelNames().begin(), f.labelNames().end(), name);
        all = all && at != f.labelNames().end() &&
              values[static_cast<size_t>(at - f.labelNames().begin())] == v;
      }
      if (all) {
        return gauge->value();
      }
    }
    return std::nan("");
  }

  size_t series(const std::string& family) { return registry_.gauge(family, "").children().size(); }

  core::FakeClock clock_;
  runtime::Registry registry_;
  kube::Cache nodes_, pods_, claims_, pools_;
  StateMetricsController controller_;
};

TEST_F(StateMetricsTest, EveryFamilyIsListedBeforeTheFirstPass) {
  const std::string text = registry_.render();
  for (const char* name :
       {"karpenter_nodes_allocatable", "karpenter_nodes_total_pod_requests",
        "karpenter_nodes_total_daemon_requests", "karpenter_nodepools_usage",
        "karpenter_nodepools_limit", "karpenter_pods_state",
        "karpenter_pods_startup_duration_seconds", "karpenter_cluster_state_synced"}) {
    EXPECT_NE(text.find(std::string("# TYPE ") + name + " "), std::string::npos) << name;
  }
  EXPECT_NE(text.find("karpenter_cluster_state_synced 0\n"), std::string::npos) << text;
}

TEST_F(StateMetricsTest, ReportsNodeResourcesAndOverhead) {
  nodes_.upsert(object(node("a")));
  Pod daemon = pod("agent", "a", "100m");
  api::OwnerReference owner;
  owner.apiVersion = "apps/v1";
  owner.kind = "DaemonSet";
  owner.name = "agent";
  owner.controller = true;
  daemon.metadata.ownerReferences.push_back(owner);
  pods_.upsert(object(daemon));
  pods_.upsert(object(pod("web", "a", "500m")));
  Pod done = pod("job", "a", "4");
  done.status.phase = "Succeeded";  // a finished pod holds nothing
  pods_.upsert(object(done));
  clock_.advance(90s);
  reconcile();

  const std::map<std::string, std::string> cpu{{"node_name", "a"}, {"resource_type", "cpu"}};
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_allocatable", cpu), 1.93);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_system_overhead", cpu), 0.07);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_total_pod_requests", cpu), 0.6);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_total_pod_limits", cpu), 2);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_total_daemon_requests", cpu), 0.1);
  EXPECT_DOUBLE_EQ(
      value("karpenter_nodes_allocatable", {{"node_name", "a"}, {"resource_type", "memory"}}),
      7.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_allocatable", {{"node_name", "a"},
                                                         {"resource_type", "pods"},
                                                         {"nodepool", "default"},
                                                         {"zone", "us-east-1a"},
                                                         {"instance_type", "m5.large"},
                                                         {"capacity_type", "on-demand"},
                                                         {"arch", "amd64"},
                                                         {"managed", "false"}}),
                   29);
  EXPECT_DOUBLE_EQ(value("karpenter_nodes_current_lifetime_seconds", {{"node_name", "a"}}), 90);
  EXPECT_NEAR(value("karpenter_cluster_utilization_percent", {{"resource_type", "cpu"}}),
              100 * 0.6 / 1.93, 1e-9);
  EXPECT_EQ(value("karpenter_cluster_state_node_count", {}), 1);
  EXPECT_EQ(value("karpenter_cluster_state_synced", {}), 1);
}

TEST_F(StateMetricsTest, SeriesOfAGoneNodeDisappear) {
  nodes_.upsert(object(node("a")));
  nodes_.upsert(object(node("b")));
  reconcile();
  EXPECT_EQ(series("karpenter_nodes_allocatable"), 6u);  // 2 nodes x cpu, memory, pods
  nodes_.erase("b");
  reconcile();
  EXPECT_EQ(series("karpenter_nodes_allocatable"), 3u);
  EXPECT_TRUE(std::isnan(value("karpenter_nodes_allocatable", {{"node_name", "b"}})));
  EXPECT_EQ(value("karpenter_cluster_state_node_count", {}), 1);
}

TEST_F(StateMetricsTest, ManagedNodesAndUnregisteredClaimsCountAsClusterState) {
  nodes_.upsert(object(node("a")));
  NodeClaim claimed;
  claimed.metadata.name = "default-a";
  claimed.status.providerID = "aws:///us-east-1a/i-a";
  claims_.upsert(object(claimed));
  NodeClaim launching;
  launching.metadata.name = "default-b";
  launching.status.providerID = "aws:///us-east-1a/i-b";  // no node yet
  claims_.upsert(object(launching));
  reconcile();
  EXPECT_EQ(value("karpenter_nodes_allocatable",
                  {{"node_name", "a"}, {"resource_type", "cpu"}, {"managed", "true"}}),
            1.93);
  EXPECT_EQ(value("karpenter_cluster_state_node_count", {}), 2);
}

TEST_F(StateMetricsTest, ReportsNodePoolUsageAndLimits) {
  NodePool pool;
  pool.metadata.name = "default";
  pool.spec.limits = {{"cpu", q("1000")}, {"memory", q("1000Gi")}};
  pool.status.resources = {{"cpu", q("2500m")}, {"ephemeral-storage", q("20Gi")}};
  pools_.upsert(object(pool));
  reconcile();
  EXPECT_EQ(value("karpenter_nodepools_limit", {{"nodepool", "default"}, {"resource_type", "cpu"}}),
            1000);
  EXPECT_EQ(value("karpenter_nodepools_usage", {{"nodepool", "default"}, {"resource_type", "cpu"}}),
            2.5);
  EXPECT_EQ(value("karpenter_nodepools_usage",
                  {{"nodepool", "default"}, {"resource_type", "ephemeral_storage"}}),
            20.0 * 1024 * 1024 * 1024);
}

TEST_F(StateMetricsTest, PodStateAndStartupAreMeasuredFromTheRightTransitions) {
  nodes_.upsert(object(node("a")));
  Pod web = pod("web", "", "500m");
  const core::Time created = web.metadata.creationTimestamp;
  pods_.upsert(object(web));
  clock_.advance(10s);
  reconcile();
  EXPECT_EQ(value("karpenter_pods_state", {{"name", "web"},
                                           {"namespace", "default"},
                                           {"phase", "Pending"},
                                           {"scheduled", "false"},
                                           {"ready", "false"}}),
            1);
  EXPECT_EQ(value("karpenter_pods_unbound_time_seconds", {{"name", "web"}}), 10);
  EXPECT_EQ(value("karpenter_pods_unstarted_time_seconds", {{"name", "web"}}), 10);

  // Bound at +12 s, Ready at +30 s; seen only at +45 s: the transitions count, not the pass.
  web.spec.nodeName = "a";
  web.status.phase = "Running";
  api::corev1::PodCondition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = "True";
  scheduled.lastTransitionTime = core::Time(created.point() + 12s);
  api::corev1::PodCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  ready.lastTransitionTime = core::Time(created.point() + 30s);
  web.status.conditions = {scheduled, ready};
  pods_.upsert(object(web));
  clock_.advance(35s);
  reconcile();
  EXPECT_EQ(value("karpenter_pods_state", {{"name", "web"},
                                           {"node", "a"},
                                           {"phase", "Running"},
                                           {"nodepool", "default"},
                                           {"zone", "us-east-1a"},
                                           {"instance_type", "m5.large"},
                                           {"ready", "true"}}),
            1);
  EXPECT_EQ(series("karpenter_pods_state"), 1u);  // the Pending series is gone
  EXPECT_EQ(series("karpenter_pods_unbound_time_seconds"), 0u);
  EXPECT_EQ(series("karpenter_pods_unstarted_time_seconds"), 0u);
  auto& startup = registry_.summary("karpenter_pods_startup_duration_seconds", "");
  EXPECT_EQ(startup.get().count(), 1u);
  EXPECT_EQ(startup.get().sum(), 30);
  auto& bound = registry_.histogram("karpenter_pods_bound_duration_seconds", "");
  EXPECT_EQ(bound.get().count(), 1u);
  EXPECT_EQ(bound.get().sum(), 12);

  // Another pass measures nothing twice.
  reconcile();
  EXPECT_EQ(startup.get().count(), 1u);
}

}  // namespace
}  // namespace nodewright::controllers::telemetry
