#include <signal.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aws/transport.h"
#include "cmd/controller_set.h"
#include "cmd_test_util.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/process.h"
#include "support/runtime/scrape.h"

// Observability parity with Karpenter v1.14: the metrics nodewright serves carry the names, types
// and label names of Karpenter's metrics reference (aws/karpenter-provider-aws
// website/content/en/v1.14/reference/metrics.md), with the labels of their Go definitions
// (sigs.k8s.io/karpenter v1.14.0, controller-runtime v0.23, the AWS provider v1.14.1). Every
// family is registered when the controllers are built, so /metrics lists it before its first
// event; `nodewright up` serves /metrics and says where.
namespace nodewright::cmd {
namespace {

using namespace std::chrono_literals;

struct Documented {
  const char* name;
  const char* type;
  std::vector<std::string> labels;
};

// Karpenter's node metric labels: node_name, phase, managed, then each of Karpenter's and the
// AWS provider's WellKnownLabels, named by the part after '/' in snake_case.
std::vector<std::string> nodeLabels() {
  return {"node_name",
          "phase",
          "managed",
          "nodepool",
          "zone",
          "region",
          "instance_type",
          "arch",
          "os",
          "capacity_type",
          "windows_build",
          "capacity_reservation_id",
          "capacity_reservation_type",
          "capacity_reservation_interruptible",
          "instance_hypervisor",
          "instance_encryption_in_transit_supported",
          "instance_category",
          "instance_capability_flex",
          "instance_family",
          "instance_generation",
          "instance_size",
          "instance_local_nvme",
          "instance_cpu",
          "instance_cpu_manufacturer",
          "instance_cpu_sustained_clock_speed_mhz",
          "instance_memory",
          "instance_ebs_bandwidth",
          "instance_network_bandwidth",
          "instance_gpu_name",
          "instance_gpu_manufacturer",
          "instance_gpu_count",
          "instance_gpu_memory",
          "instance_accelerator_name",
          "instance_accelerator_manufacturer",
          "instance_accelerator_count",
          "zone_id",
          "instance_tenancy",
          "placement_group_id",
          "placement_group_partition"};
}

std::vector<std::string> withResource(std::vector<std::string> labels) {
  labels.push_back("resource_type");
  return labels;
}

// The documented metrics nodewright serves, as upstream defines them.
std::vector<Documented> documented() {
  const std::vector<std::string> queue{"name", "controller"};
  const std::vector<std::string> offering{"instance_type", "capacity_type", "zone"};
  const std::vector<std::string> decision{"decision", "reason", "consolidation_type"};
  return {
      {"controller_runtime_reconcile_total", "counter", {"controller", "result"}},
      {"controller_runtime_reconcile_errors_total", "counter", {"controller"}},
      {"controller_runtime_terminal_reconcile_errors_total", "counter", {"controller"}},
      {"controller_runtime_reconcile_panics_total", "counter", {"controller"}},
      {"controller_runtime_reconcile_timeouts_total", "counter", {"controller"}},
      {"controller_runtime_reconcile_time_seconds", "histogram", {"controller"}},
      {"controller_runtime_max_concurrent_reconciles", "gauge", {"controller"}},
      {"controller_runtime_active_workers", "gauge", {"controller"}},
      {"workqueue_depth", "gauge", {"name", "controller", "priority"}},
      {"workqueue_adds_total", "counter", queue},
      {"workqueue_queue_duration_seconds", "histogram", queue},
      {"workqueue_work_duration_seconds", "histogram", queue},
      {"workqueue_unfinished_work_seconds", "gauge", queue},
      {"workqueue_longest_running_processor_seconds", "gauge", queue},
      {"workqueue_retries_total", "counter", queue},
      {"karpenter_build_info", "gauge", {"version", "goversion", "goarch", "commit"}},
      {"karpenter_nodeclaims_created_total",
       "counter",
       {"reason", "nodepool", "min_values_relaxed"}},
      {"karpenter_nodeclaims_terminated_total", "counter", {"nodepool", "capacity_type", "zone"}},
      {"karpenter_nodeclaims_disrupted_total", "counter", {"reason", "nodepool", "capacity_type"}},
      {"karpenter_nodeclaims_termination_duration_seconds", "histogram", {"nodepool"}},
      {"karpenter_nodes_created_total", "counter", {"nodepool", "zone"}},
      {"karpenter_nodes_terminated_total", "counter", {"nodepool", "zone"}},
      {"karpenter_nodes_termination_duration_seconds", "summary", {"nodepool"}},
      {"karpenter_nodes_lifetime_duration_seconds", "histogram", {"nodepool"}},
      {"karpenter_nodes_allocatable", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_total_pod_requests", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_total_pod_limits", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_total_daemon_requests", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_total_daemon_limits", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_system_overhead", "gauge", withResource(nodeLabels())},
      {"karpenter_nodes_current_lifetime_seconds", "gauge", nodeLabels()},
      {"karpenter_pods_state",
       "gauge",
       {"name", "namespace", "owner", "node", "scheduled", "nodepool", "zone", "arch",
        "capacity_type", "instance_type", "phase", "ready", "managed"}},
      {"karpenter_pods_startup_duration_seconds", "summary", {}},
      {"karpenter_pods_bound_duration_seconds", "histogram", {}},
      {"karpenter_pods_unstarted_time_seconds", "gauge", {"name", "namespace"}},
      {"karpenter_pods_unbound_time_seconds", "gauge", {"name", "namespace"}},
      {"karpenter_pods_eviction_requests_total", "counter", {"code"}},
      {"karpenter_scheduler_scheduling_duration_seconds", "histogram", {"controller"}},
      {"karpenter_scheduler_unschedulable_pods_count", "gauge", {"controller"}},
      {"karpenter_nodepools_usage", "gauge", {"resource_type", "nodepool"}},
      {"karpenter_nodepools_limit", "gauge", {"resource_type", "nodepool"}},
      {"karpenter_nodepools_allowed_disruptions", "gauge", {"nodepool", "reason"}},
      {"karpenter_voluntary_disruption_eligible_nodes", "gauge", {"reason"}},
      {"karpenter_voluntary_disruption_decisions_total", "counter", decision},
      {"karpenter_voluntary_disruption_queue_failures_total", "counter", decision},
      {"karpenter_cluster_utilization_percent", "gauge", {"resource_type"}},
      {"karpenter_cluster_state_node_count", "gauge", {}},
      {"karpenter_cluster_state_synced", "gauge", {}},
      {"karpenter_cluster_state_unsynced_time_seconds", "gauge", {}},
      {"karpenter_cloudprovider_duration_seconds",
       "histogram",
       {"controller", "method", "provider"}},
      {"karpenter_cloudprovider_errors_total",
       "counter",
       {"controller", "method", "provider", "error"}},
      {"karpenter_cloudprovider_instance_type_cpu_cores", "gauge", {"instance_type"}},
      {"karpenter_cloudprovider_instance_type_memory_bytes", "gauge", {"instance_type"}},
      {"karpenter_cloudprovider_instance_type_offering_available", "gauge", offering},
      {"karpenter_cloudprovider_instance_type_offering_price_estimate", "gauge", offering},
  };
}

// Every metric name the queries of Karpenter's Grafana dashboards use
// (website/content/en/v1.14/getting-started/getting-started-with-karpenter/
// karpenter-capacity-dashboard.json and karpenter-performance-dashboard.json), without the
// _bucket/_sum/_count suffixes. nodewright serves every one.
const char* const kDashboardNames[] = {
    "controller_runtime_reconcile_time_seconds",
    "controller_runtime_reconcile_total",
    "karpenter_nodeclaims_disrupted_total",
    "karpenter_nodepools_limit",
    "karpenter_nodepools_usage",
    "karpenter_nodes_allocatable",
    "karpenter_nodes_created_total",
    "karpenter_nodes_terminated_total",
    "karpenter_nodes_termination_duration_seconds",
    "karpenter_nodes_total_daemon_requests",
    "karpenter_nodes_total_pod_requests",
    "karpenter_pods_startup_duration_seconds",
    "karpenter_pods_state",
    "karpenter_voluntary_disruption_decisions_total",
    "karpenter_voluntary_disruption_eligible_nodes",
};

std::set<std::string> asSet(const std::vector<std::string>& labels) {
  return {labels.begin(), labels.end()};
}

// The label names `registry` has for `row`, or nullopt when it has no such family.
std::optional<std::vector<std::string>> registeredLabels(runtime::Registry& registry,
                                                         const Documented& row) {
  // Asking for a family registers it if missing: only trust families the render lists.
  const std::string type = row.type;
  if (type == "counter") {
    return registry.counter(row.name, "").labelNames();
  }
  if (type == "gauge") {
    return registry.gauge(row.name, "").labelNames();
  }
  if (type == "histogram") {
    return registry.histogram(row.name, "").labelNames();
  }
  if (type == "summary") {
    return registry.summary(row.name, "").labelNames();
  }
  return std::nullopt;
}

// The controllers `nodewright controller` and `up` run, built on a manager that never runs: what
// they register at construction is what /metrics lists before any event.
TEST(KarpenterMetricsTest, ControllersRegisterEveryDocumentedFamilyWithUpstreamTypeAndLabels) {
  kube::RestConfig config;
  config.server = "https://127.0.0.1:1";  // never contacted: the manager does not run
  auto client = kube::Client::create(config);
  ASSERT_TRUE(client) << client.error().message();
  runtime::Registry registry;
  runtime::ManagerOptions managerOptions;
  managerOptions.metrics = &registry;
  runtime::Manager manager(**client, managerOptions);
  auto transport = nodewright::aws::makeCurlTransport();
  ControllerSetOptions options;
  options.aws.ec2Endpoint = "http://127.0.0.1:1";
  options.aws.ssmEndpoint = "http://127.0.0.1:1";
  options.aws.cluster.name = "nodewright";
  auto set = ControllerSet::create(manager, *transport, std::move(options));
  ASSERT_TRUE(set) << set.error().message();

  // Rendered before anything registers a family the controllers did not.
  const std::string text = registry.render();
  for (const Documented& row : documented()) {
    SCOPED_TRACE(row.name);
    EXPECT_NE(text.find(std::string("# TYPE ") + row.name + " " + row.type + "\n"),
              std::string::npos)
        << "not served as a " << row.type;
    auto labels = registeredLabels(registry, row);
    ASSERT_TRUE(labels);
    EXPECT_EQ(asSet(*labels), asSet(row.labels));
    EXPECT_EQ(labels->size(), row.labels.size());
  }
  for (const char* name : kDashboardNames) {
    EXPECT_NE(text.find(std::string("# TYPE ") + name + " "), std::string::npos) << name;
  }
  EXPECT_EQ(runtime::testing::prometheusParserExitCode(text), 0) << text;
}

// `nodewright up` prints where it serves /metrics; a scrape before any NodePool exists lists
// every documented family and every dashboard name, and says the cluster state is synced.
TEST(KarpenterMetricsTest, UpServesMetricsAndPrintsWhere) {
  testing::ScratchDir dir;
  apiserver::testing::Child up(
      {NW_BINARY, "up", "--data-dir", (dir.path() / "data").string(), "--listen", "127.0.0.1:0"});
  const std::string line = up.waitForLine("  metrics: http://127.0.0.1:", 120s);
  ASSERT_FALSE(line.empty()) << "no metrics line";
  ASSERT_FALSE(up.waitForLine("nodewright is ready", 60s).empty());
  const std::string prefix = "  metrics: http://127.0.0.1:";
  const std::string suffix = "/metrics";
  ASSERT_EQ(line.substr(line.size() - suffix.size()), suffix) << line;
  const auto port = static_cast<uint16_t>(
      std::stoi(line.substr(prefix.size(), line.size() - prefix.size() - suffix.size())));

  runtime::testing::Fetched scraped;
  auto synced = [&] {
    scraped = runtime::testing::fetch(port, "/metrics");
    return scraped.status == 200 &&
           scraped.body.find("\nkarpenter_cluster_state_synced 1\n") != std::string::npos;
  };
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!synced() && std::chrono::steady_clock::now() < deadline) {
    up.waitForLine("\x01", 200ms);  // paces the poll; no line ever starts so
  }
  ASSERT_EQ(scraped.status, 200) << scraped.error;
  ASSERT_NE(scraped.body.find("\nkarpenter_cluster_state_synced 1\n"), std::string::npos);
  for (const Documented& row : documented()) {
    EXPECT_NE(scraped.body.find(std::string("# TYPE ") + row.name + " " + row.type + "\n"),
              std::string::npos)
        << row.name;
  }
  for (const char* name : kDashboardNames) {
    EXPECT_NE(scraped.body.find(std::string("# TYPE ") + name + " "), std::string::npos) << name;
  }
  auto families = runtime::testing::parseWithPrometheus(scraped.body);
  const auto* build = runtime::testing::findFamily(families, "karpenter_build_info");
  ASSERT_NE(build, nullptr);
  ASSERT_EQ((*build)["samples"].size(), 1u);
  const auto& sample = (*build)["samples"][0];
  EXPECT_EQ(sample[2], "1.0");
  for (const char* label : {"version", "goversion", "goarch", "commit"}) {
    EXPECT_TRUE(sample[1].contains(label)) << label;
  }
  up.kill(SIGTERM);
  EXPECT_EQ(up.wait(30s), 0);
}

}  // namespace
}  // namespace nodewright::cmd
