#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "support/apiserver/process.h"
#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Issue 23, static NodePools on the real binary: `nodewright up`, then kubectl only. A NodePool
// with replicas 5 gets 5 Ready nodes with no pods on them; `kubectl scale nodepool --replicas 2`
// leaves 2; a Deployment's pods (more than the nodes hold) never change the count, and the
// empty nodes stay although the pool would consolidate them at once.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using api::Json;
using apiserver::testing::Child;
using apiserver::testing::Ran;
using kube::testing::eventually;

constexpr const char* kStaticPool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: fixed
spec:
  replicas: 5
  limits:
    nodes: 8
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
  template:
    metadata:
      labels:
        pool: fixed
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-cpu
          operator: In
          values: ["2"]
)";

// Six pods of one CPU each: two 2-CPU nodes hold at most four of them (less the system's
// reservations), so some stay pending, which must not grow the pool.
constexpr const char* kWorkload = R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 6
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector:
        pool: fixed
      containers:
        - name: web
          image: registry.k8s.io/pause:3.9
          resources:
            requests: {cpu: "1"}
)";

class StaticNodePoolEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "nw-static-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dataDir_ = tmpl;
    up_ = std::make_unique<Child>(std::vector<std::string>{NW_BINARY, "up", "--data-dir", dataDir_,
                                                           "--listen", "127.0.0.1:0", "--wait"});
    ASSERT_NE(up_->waitForLine("nodewright is ready", 180s), "") << "nodewright up never ready";
  }
  void TearDown() override {
    if (up_) {
      up_->kill(SIGTERM);
      EXPECT_EQ(up_->wait(60s), 0) << "nodewright up did not stop cleanly";
    }
    std::error_code ec;
    std::filesystem::remove_all(dataDir_, ec);
  }

  Ran kubectl(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"kubectl", "--kubeconfig", dataDir_ + "/kubeconfig"});
    return apiserver::testing::runProcess(args, input);
  }
  std::string ok(const std::vector<std::string>& args, const std::string& input = "") {
    Ran ran = kubectl(args, input);
    EXPECT_EQ(ran.code, 0) << ran.err;
    return ran.out;
  }
  Json list(const std::string& kind, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"get", kind, "-o", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Ran ran = kubectl(args);
    if (ran.code != 0) {
      lastError_ = "exit " + std::to_string(ran.code) + ": " + ran.err;
      return Json::object({{"items", Json::array()}});
    }
    return Json::parse(ran.out);
  }
  // By value: a range-for over list(...)["items"] would iterate a destroyed temporary.
  Json items(const std::string& kind, const std::vector<std::string>& extra = {}) {
    return list(kind, extra)["items"];
  }
  // Live (not deleting) NodeClaims of the pool.
  size_t claims() {
    size_t n = 0;
    for (const auto& c : items("nodeclaims", {"-l", "karpenter.sh/nodepool=fixed"})) {
      n += c["metadata"].contains("deletionTimestamp") ? 0 : 1;
    }
    return n;
  }
  // Ready Nodes of the pool.
  size_t readyNodes() {
    size_t n = 0;
    for (const auto& node : items("nodes", {"-l", "karpenter.sh/nodepool=fixed"})) {
      for (const auto& c : node["status"].value("conditions", Json::array())) {
        n += c.value("type", "") == "Ready" && c.value("status", "") == "True" ? 1 : 0;
      }
    }
    return n;
  }
  size_t nodes() { return list("nodes", {"-l", "karpenter.sh/nodepool=fixed"})["items"].size(); }
  size_t podsIn(const std::string& phase, bool bound) {
    size_t n = 0;
    for (const auto& pod : items("pods", {"-n", "default", "-l", "app=web"})) {
      const bool isBound = !pod["spec"].value("nodeName", "").empty();
      n += pod["status"].value("phase", "") == phase && isBound == bound ? 1 : 0;
    }
    return n;
  }
  // Pods bound to any Node, in every namespace.
  size_t boundPods() {
    size_t n = 0;
    for (const auto& pod : items("pods", {"-A"})) {
      n += pod["spec"].value("nodeName", "").empty() ? 0 : 1;
    }
    return n;
  }
  Json pool() { return Json::parse(ok({"get", "nodepool", "fixed", "-o", "json"})); }

  // The count holds at `expected` over `window`: checked at every poll, not slept through.
  void expectStable(size_t expected, std::chrono::seconds window) {
    const auto end = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < end) {
      ASSERT_EQ(claims(), expected);
      ASSERT_LE(nodes(), expected);
    }
  }

  std::string dataDir_;
  std::unique_ptr<Child> up_;
  std::string lastError_;  // of the last failed list, for the failure messages
};

TEST_F(StaticNodePoolEndToEnd, KeepsReplicasNodesScalesWithKubectlAndIgnoresPods) {
  ok({"apply", "-f", e2e::testing::testdata("ec2nodeclass.yaml")});
  ok({"apply", "-f", "-"}, kStaticPool);

  // Five Ready nodes with no workload at all.
  ASSERT_TRUE(eventually([&] { return readyNodes() == 5; }, 180s))
      << "nodes " << readyNodes() << ", claims " << claims()
      << ", last kubectl error: " << lastError_;
  EXPECT_EQ(claims(), 5u);
  EXPECT_EQ(boundPods(), 0u) << "nothing asked for these nodes";
  // Status shows the nodes and their resources; the scale subresource reads them.
  ASSERT_TRUE(eventually([&] { return pool()["status"].value("nodes", 0) == 5; }, 60s));
  EXPECT_EQ(pool()["status"]["resources"]["nodes"], "5");
  EXPECT_NE(pool()["status"]["resources"].value("cpu", "0"), "0");
  Json scale = Json::parse(ok({"get", "--raw", "/apis/karpenter.sh/v1/nodepools/fixed/scale"}));
  EXPECT_EQ(scale["spec"]["replicas"], 5);
  EXPECT_EQ(scale["status"]["replicas"], 5);

  // Empty for a while with consolidateAfter 0s: consolidation never removes them.
  expectStable(5, 5s);

  EXPECT_EQ(ok({"scale", "nodepool", "fixed", "--replicas", "2"}),
            "nodepool.karpenter.sh/fixed scaled\n");
  ASSERT_TRUE(eventually([&] { return claims() == 2 && nodes() == 2; }, 180s))
      << "claims " << claims() << ", nodes " << nodes();
  ASSERT_TRUE(eventually([&] { return pool()["status"].value("nodes", 0) == 2; }, 60s));

  // A workload larger than the two nodes: what fits runs there, the rest waits, and the pool
  // stays at two however long the pods wait.
  ok({"apply", "-f", "-"}, kWorkload);
  ASSERT_TRUE(eventually([&] { return podsIn("Running", true) >= 2; }, 120s))
      << "running " << podsIn("Running", true);
  ASSERT_TRUE(eventually([&] { return podsIn("Pending", false) >= 2; }, 60s));
  expectStable(2, 10s);
  EXPECT_EQ(podsIn("Running", true) + podsIn("Pending", false), 6u);

  // The pods gone, the nodes stay.
  ok({"scale", "deployment", "web", "-n", "default", "--replicas", "0"});
  ASSERT_TRUE(eventually(
      [&] {
        return list("pods", {"-n", "default", "-l", "app=web"})["items"].empty();
      },
      120s));
  expectStable(2, 5s);

  // The rules upstream gives, through kubectl.
  Ran weight =
      kubectl({"patch", "nodepool", "fixed", "--type=merge", "-p", R"({"spec":{"weight":10}})"});
  EXPECT_NE(weight.code, 0);
  EXPECT_THAT(weight.err, ::testing::HasSubstr("'weight' is not supported on static NodePools"));
  Ran dynamic = kubectl({"patch", "nodepool", "fixed", "--type=json", "-p",
                         R"([{"op":"remove","path":"/spec/replicas"}])"});
  EXPECT_NE(dynamic.code, 0);
  EXPECT_THAT(dynamic.err, ::testing::HasSubstr("Cannot transition NodePool"));
}

}  // namespace
}  // namespace nodewright::e2e
