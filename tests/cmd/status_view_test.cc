#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cmd/status/model.h"
#include "cmd/status/render.h"
#include "cmd_test_util.h"

namespace nodewright::cmd::status {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

const core::TimePoint kNow{std::chrono::seconds(1700000000)};

core::Time ago(std::chrono::seconds by) {
  return core::Time(kNow - by);
}

core::Quantity q(const char* text) {
  return *core::Quantity::parse(text);
}

std::map<std::string, std::string> cloudLabels(const char* type, const char* zone,
                                               const char* capacity) {
  return {{"karpenter.sh/nodepool", "default"},
          {"node.kubernetes.io/instance-type", type},
          {"topology.kubernetes.io/zone", zone},
          {"karpenter.sh/capacity-type", capacity}};
}

Node node(const char* name, const char* type, const char* zone, const char* capacity,
          const char* cpu, const char* memory, bool ready, std::chrono::seconds age) {
  Node n;
  n.metadata.name = name;
  n.metadata.labels = cloudLabels(type, zone, capacity);
  n.metadata.creationTimestamp = ago(age);
  n.spec.providerID = std::string("aws:///") + zone + "/i-" + name;
  n.status.allocatable = {{"cpu", q(cpu)}, {"memory", q(memory)}};
  n.status.capacity = n.status.allocatable;
  n.status.conditions.push_back({"Ready", ready ? "True" : "False", {}, {}, "", "", {}});
  return n;
}

NodeClaim claim(const char* name, const std::string& providerID) {
  NodeClaim c;
  c.metadata.name = name;
  c.metadata.labels = {{"karpenter.sh/nodepool", "default"}};
  c.status.providerID = providerID;
  return c;
}

Pod pod(const char* name, const char* nodeName, const char* cpu, const char* memory,
        const char* initCpu = nullptr) {
  Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.spec.nodeName = nodeName;
  p.status.phase = "Running";
  api::corev1::Container app;
  app.name = "app";
  app.resources.requests = {{"cpu", q(cpu)}, {"memory", q(memory)}};
  p.spec.containers.push_back(app);
  if (initCpu != nullptr) {
    api::corev1::Container init;
    init.name = "init";
    init.resources.requests = {{"cpu", q(initCpu)}};
    p.spec.initContainers.push_back(init);
  }
  return p;
}

api::capi::CapiCondition capiCondition(const char* type, const char* status, const char* reason,
                                       std::chrono::seconds age) {
  api::capi::CapiCondition c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.lastTransitionTime = ago(age);
  return c;
}

api::capz::AzureMachine machine(const std::string& name, std::chrono::seconds age) {
  api::capz::AzureMachine m;
  m.metadata.name = name;
  m.metadata.namespace_ = "default";
  m.metadata.creationTimestamp = ago(std::chrono::seconds(600));
  m.status.vmState = "Creating";
  m.status.conditions = {capiCondition("VMRunning", "False", "Creating", age)};
  m.status.longRunningOperationStates = {{"PUT", "rg", "virtualmachine", name, "token"}};
  return m;
}

// Two nodes (one drifted with pods, one spot and being disrupted), a claim still launching,
// a pending and a finished pod, and an AzureCluster and AzureMachine with operations in flight.
Snapshot knownState() {
  using std::chrono::seconds;
  Snapshot s;
  s.nodes.push_back(
      node("node-a", "m5.large", "us-east-1a", "on-demand", "2", "8Gi", true, seconds(300)));
  Node b = node("node-b", "c5.large", "us-east-1b", "spot", "2", "4Gi", false, seconds(7200));
  b.spec.taints.push_back({"karpenter.sh/disrupted", "", "NoSchedule", {}});
  s.nodes.push_back(b);

  NodeClaim a = claim("default-a", "aws:///us-east-1a/i-node-a");
  a.status.conditions.push_back({"Drifted", "True", 0, {}, "NodePoolDrifted", ""});
  NodeClaim byName = claim("default-b", "");
  byName.status.nodeName = "node-b";
  NodeClaim launching = claim("default-c", "");
  launching.metadata.labels = cloudLabels("m5.xlarge", "us-east-1c", "on-demand");
  launching.metadata.creationTimestamp = ago(seconds(30));
  launching.status.allocatable = {{"cpu", q("4")}, {"memory", q("16Gi")}};
  launching.status.capacity = launching.status.allocatable;
  s.nodeClaims = {a, byName, launching};

  NodePool pool;
  pool.metadata.name = "default";
  pool.spec.limits = {{"cpu", q("1000")}, {"memory", q("1000Gi")}};
  s.nodePools.push_back(pool);

  s.pods.push_back(pod("web", "node-a", "1", "2Gi"));
  // Init containers count as kube-scheduler counts them: max(600m init, 100m app).
  s.pods.push_back(pod("job", "node-a", "100m", "1Gi", "600m"));
  s.pods.push_back(pod("pending", "", "1", "1Gi"));
  Pod done = pod("done", "node-a", "4", "4Gi");
  done.status.phase = "Succeeded";
  s.pods.push_back(done);

  api::capz::AzureCluster cluster;
  cluster.metadata.name = "demo";
  cluster.metadata.namespace_ = "default";
  cluster.metadata.creationTimestamp = ago(seconds(900));
  cluster.status.conditions = {capiCondition("ResourceGroupReady", "True", "", seconds(800)),
                               capiCondition("VNetReady", "False", "Creating", seconds(45))};
  cluster.status.longRunningOperationStates = {
      {"PUT", "demo", "virtualnetworks", "demo-vnet", "token"}};
  s.azureClusters.push_back(cluster);
  s.azureMachines.push_back(machine("demo-md-0", seconds(12)));
  return s;
}

// node-a: 1 CPU + max(600m init, 100m app) of 2 is 80%; 3Gi of 8Gi rounds to 38%. node-b
// joins its claim by node name; the spot node has no built-in price; the finished pod does not
// count. The futures are as old as the condition that waits on them.
TEST(StatusViewTest, RendersTheKnownStateExactly) {
  View view = buildView(knownState(), builtinPrice);
  EXPECT_EQ(
      render(view, {0, false, kNow}),
      R"(nodewright status  nodes 2 (+1 launching)  pods 3 (1 pending)  cost $0.288/h  cloud objects 2

NODE       NODEPOOL  TYPE       ZONE        CAPACITY   PRICE/H  CPU                  MEMORY               PODS  STATE                 AGE
default-c  default   m5.xlarge  us-east-1c  on-demand  $0.192   cpu ░░░░░░░░░░   0%  mem ░░░░░░░░░░   0%  0     launching             30s
node-a     default   m5.large   us-east-1a  on-demand  $0.096   cpu ████████░░  80%  mem ████░░░░░░  38%  2     ready,drifted         5m
node-b     default   c5.large   us-east-1b  spot       -        cpu ░░░░░░░░░░   0%  mem ░░░░░░░░░░   0%  0     not-ready,disrupting  2h

NODEPOOL  NODES  CPU  MEMORY  PRICE/H  LIMITS
default   3      8    28Gi    $0.288   cpu 8/1000  memory 28Gi/1000Gi

AzureCluster default/demo  not-ready  age 15m
  ResourceGroupReady  True   -
  VNetReady           False  Creating
  future PUT virtualnetworks/demo-vnet 45s
AzureMachine default/demo-md-0  not-ready  vm Creating  age 10m
  VMRunning  False  Creating
  future PUT virtualmachine/demo-md-0 12s
)");
}

TEST(StatusViewTest, TwentyMachinesTakeOneLineEach) {
  Snapshot s;
  for (int i = 0; i < 20; ++i) {
    s.azureMachines.push_back(machine("m-" + std::string(i < 10 ? "0" : "") + std::to_string(i),
                                      std::chrono::seconds(60 + i)));
  }
  s.azureMachines[3].status.conditions[0].status = "True";
  s.azureMachines[3].status.longRunningOperationStates.clear();
  s.azureMachines[3].status.ready = true;
  s.azureMachines[3].status.vmState = "Succeeded";
  std::vector<std::string> lines =
      nodewright::cmd::testing::lines(render(buildView(s, builtinPrice), {0, false, kNow}));
  ASSERT_EQ(lines.size(), 4u + 20u);  // summary, blank, "no nodes", blank, machines
  EXPECT_EQ(lines[4],
            "AzureMachine default/m-00  not-ready  vm Creating  VMRunning=False(Creating)  future "
            "PUT virtualmachine/m-00 60s");
  EXPECT_EQ(lines[7], "AzureMachine default/m-03  ready  vm Succeeded");
  EXPECT_EQ(lines[23],
            "AzureMachine default/m-19  not-ready  vm Creating  VMRunning=False(Creating)  future "
            "PUT virtualmachine/m-19 79s");
}

TEST(StatusViewTest, CutsLinesToTheWidthInColumnsNotBytes) {
  Snapshot s;
  s.nodes.push_back(node("node-a", "m5.large", "us-east-1a", "on-demand", "2", "8Gi", true,
                         std::chrono::seconds(5)));
  s.pods.push_back(pod("web", "node-a", "1", "4Gi"));
  std::vector<std::string> lines =
      nodewright::cmd::testing::lines(render(buildView(s, builtinPrice), {70, false, kNow}));
  ASSERT_EQ(lines.size(), 7u);  // summary, blank, header, node, blank, pool header, pool
  EXPECT_EQ(lines[3], "node-a  default   m5.large  us-east-1a  on-demand  $0.096   cpu █████░");
}

TEST(StatusViewTest, ColoursBarsAndStatesOnlyWhenAsked) {
  Snapshot s;
  s.nodes.push_back(node("node-a", "m5.large", "us-east-1a", "on-demand", "2", "8Gi", true,
                         std::chrono::seconds(5)));
  s.pods.push_back(pod("web", "node-a", "1800m", "1Gi"));
  View view = buildView(s, builtinPrice);
  EXPECT_EQ(render(view, {0, false, kNow}).find('\033'), std::string::npos);
  std::string coloured = render(view, {0, true, kNow});
  EXPECT_NE(coloured.find("\033[31mcpu █████████░  90%\033[0m"), std::string::npos) << coloured;
  EXPECT_NE(coloured.find("\033[32mmem █░░░░░░░░░  13%\033[0m"), std::string::npos) << coloured;
  EXPECT_NE(coloured.find("\033[32mready\033[0m"), std::string::npos) << coloured;
}

TEST(StatusViewTest, PoolWithoutNodesShowsItsLimits) {
  Snapshot s;
  NodePool pool;
  pool.metadata.name = "gpu";
  pool.spec.limits = {{"cpu", q("16")}, {"nvidia.com/gpu", q("4")}};
  s.nodePools.push_back(pool);
  View view = buildView(s, builtinPrice);
  ASSERT_EQ(view.pools.size(), 1u);
  EXPECT_EQ(view.pools[0].nodes, 0);
  std::vector<std::string> lines = nodewright::cmd::testing::lines(render(view, {0, false, kNow}));
  EXPECT_EQ(lines.back(), "gpu       0      0    0       $0.000   cpu 0/16  nvidia.com/gpu 0/4");
}

TEST(StatusViewTest, DeletingNodesAndEmptyClaimsAreMarked) {
  Snapshot s;
  Node n = node("node-a", "m5.large", "us-east-1a", "on-demand", "2", "8Gi", true,
                std::chrono::seconds(5));
  n.metadata.deletionTimestamp = ago(std::chrono::seconds(1));
  s.nodes.push_back(n);
  NodeClaim c = claim("default-a", n.spec.providerID);
  c.status.conditions.push_back({"Empty", "True", 0, {}, "", ""});
  c.status.conditions.push_back({"Consolidatable", "True", 0, {}, "", ""});
  c.status.conditions.push_back({"Drifted", "False", 0, {}, "", ""});
  s.nodeClaims.push_back(c);
  View view = buildView(s, builtinPrice);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0].disruption,
            (std::vector<std::string>{"empty", "consolidatable", "deleting"}));
  EXPECT_EQ(view.summary.launching, 0);
}

TEST(StatusViewTest, BuiltinPricesAreOnDemandOnly) {
  EXPECT_EQ(builtinPrice("m5.large", "on-demand"), 0.096);
  EXPECT_EQ(builtinPrice("m5.large", "spot"), std::nullopt);
  EXPECT_EQ(builtinPrice("no.such", "on-demand"), std::nullopt);
}

TEST(StatusViewTest, FormatsAmountsAndAges) {
  EXPECT_EQ(bar({1, 3}, 10), "███░░░░░░░");
  EXPECT_EQ(bar({5, 2}, 4), "████");
  EXPECT_EQ(bar({5, 0}, 3), "░░░");
  EXPECT_EQ(cores(2000), "2");
  EXPECT_EQ(cores(1500), "1.5");
  EXPECT_EQ(cores(250), "0.25");
  EXPECT_EQ(bytes(int64_t{512} << 20), "512Mi");
  EXPECT_EQ(bytes(int64_t{15} << 29), "7.5Gi");
  EXPECT_EQ(bytes(100), "100");
  EXPECT_EQ(age(kNow, core::Time()), "-");
  EXPECT_EQ(age(kNow, ago(std::chrono::seconds(119))), "119s");
  EXPECT_EQ(age(kNow, ago(std::chrono::seconds(120))), "2m");
  EXPECT_EQ(age(kNow, ago(std::chrono::hours(47))), "47h");
  EXPECT_EQ(age(kNow, ago(std::chrono::hours(48))), "2d");
  EXPECT_EQ(age(kNow, core::Time(kNow + std::chrono::seconds(3))), "0s");
}

TEST(StatusViewTest, FitsAScreenKeepingTheSummary) {
  EXPECT_EQ(fitToRows("a\nb\nc\nd\n", 3), "a\nb\n... 2 more lines");
  EXPECT_EQ(fitToRows("a\nb\n", 3), "a\nb\n");
  EXPECT_EQ(fitToRows("a\nb\nc\n", 0), "a\nb\nc\n");
}

}  // namespace
}  // namespace nodewright::cmd::status
