#pragma once

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "controllers/disruption/controller.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/scheduling/fixture.h"
#include "core/clock.h"
#include "kube/client.h"
#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/rest_config.h"

// The disruption controller's passes against the embedded API server. The caches are refreshed
// from the server before each pass, and the test plays the NodeClaim lifecycle: it creates the
// Nodes, marks replacements Initialized, and a deleted claim (no finalizer here) is gone at once.
// A "crash" is a new controller object: everything it knows comes from the API.
namespace nodewright::controllers::disruption::testing {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using namespace std::chrono_literals;
namespace fixture = provisioning::scheduling::testing;

class DisruptionEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    cloud_.setInstanceTypes({fixture::instanceType("m.large", 2, 8, 30, 0.10)});
    caches_.pods = &pods_;
    caches_.nodes = &nodes_;
    caches_.nodeClaims = &claims_;
    caches_.nodePools = &pools_;
    caches_.daemonSets = &daemonSets_;
    controller_ = newController();
  }

  std::unique_ptr<DisruptionController> newController() {
    return std::make_unique<DisruptionController>(*client_, cloud_, clock_, nullptr, metrics_,
                                                  options_);
  }

  // A NodePool with these budgets (none: the default 10%).
  void addPool(const std::string& name, std::vector<api::karpenter::Budget> budgets = {},
               const std::function<void(NodePool&)>& customize = {}) {
    NodePool pool = fixture::nodePool(name);
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.disruption.consolidationPolicy = "WhenEmpty";
    pool.spec.disruption.consolidateAfter = core::Duration::never();
    if (budgets.empty()) {
      api::karpenter::Budget budget;
      budget.nodes = "10%";
      budgets.push_back(budget);
    }
    pool.spec.disruption.budgets = std::move(budgets);
    if (customize) {
      customize(pool);
    }
    auto created = kube::Typed<NodePool>(*client_).create(pool);
    ASSERT_TRUE(created) << created.error().describe();
  }

  // An initialized NodeClaim with its Ready Node (2 cpu) running `pods` pods of 900m each.
  // `customize` edits the claim before it is created (its spec is immutable afterwards).
  void addNode(const std::string& name, const std::string& pool, int pods, bool drifted,
               const std::function<void(NodeClaim&)>& customize = {}) {
    NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.metadata.labels = {{api::karpenter::kNodePoolLabel, pool}};
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    if (customize) {
      customize(claim);
    }
    auto created = kube::Typed<NodeClaim>(*client_).create(claim);
    ASSERT_TRUE(created) << created.error().describe();
    initialize(name, drifted);
    for (int i = 0; i < pods; ++i) {
      bindPod(name + "-pod-" + std::to_string(i), "900m", name);
    }
  }

  // A running pod on the Node of claim `claimName`.
  void bindPod(const std::string& name, const char* cpu, const std::string& claimName) {
    Pod pod = fixture::pod(name, cpu, "1Gi");
    pod.apiVersion = "v1";
    pod.kind = "Pod";
    pod.metadata.namespace_ = "default";
    for (auto& container : pod.spec.containers) {
      container.image = "registry.k8s.io/pause:3.9";
    }
    pod.spec.nodeName = "node-" + claimName;
    auto made = kube::Typed<Pod>(*client_).create(pod);
    ASSERT_TRUE(made) << made.error().describe();
    made->status.phase = "Running";
    auto running = kube::Typed<Pod>(*client_).updateStatus(*made);
    ASSERT_TRUE(running) << running.error().describe();
  }

  // What the lifecycle would do: Launched, Registered and Initialized, with a Ready Node.
  void initialize(const std::string& name, bool drifted = false) {
    auto updated = kube::updateStatusWithRetry(
        *client_, kube::kindOf<NodeClaim>(client_->registry()), "", name, [&](api::Object& object) {
          auto* claim = object.as<NodeClaim>();
          claim->status.providerID = "fake:///zone-a/i-" + name;
          claim->status.nodeName = "node-" + name;
          for (const char* type : {api::karpenter::kLaunched, api::karpenter::kRegistered,
                                   api::karpenter::kInitialized, api::karpenter::kReady}) {
            nodeclaim::setCondition(claim->status.conditions, type, "True", type, "", 1,
                                    clock_.now());
          }
          if (drifted) {
            nodeclaim::setCondition(claim->status.conditions, api::karpenter::kDrifted, "True",
                                    "NodeClassDrifted", "NodeClass: spec.userData changed", 1,
                                    clock_.now());
          }
          return true;
        });
    ASSERT_TRUE(updated) << updated.error().describe();
    Node node;
    node.apiVersion = "v1";
    node.kind = "Node";
    node.metadata.name = "node-" + name;
    node.metadata.labels = {
        {api::karpenter::kNodePoolLabel,
         updated->as<NodeClaim>()->metadata.labels.at(api::karpenter::kNodePoolLabel)},
        {api::karpenter::kInitializedLabel, "true"},
        {"node.kubernetes.io/instance-type", "m.large"},
        {"topology.kubernetes.io/zone", "zone-a"},
        {"kubernetes.io/arch", "amd64"},
        {"kubernetes.io/os", "linux"},
        {"karpenter.sh/capacity-type", "on-demand"}};
    node.spec.providerID = "fake:///zone-a/i-" + name;
    node.status.allocatable = {
        {"cpu", fixture::q("2")}, {"memory", fixture::q("8Gi")}, {"pods", fixture::q("30")}};
    api::corev1::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    node.status.conditions.push_back(ready);
    auto made = kube::Typed<Node>(*client_).create(node);
    ASSERT_TRUE(made) << made.error().describe();
    auto status = kube::Typed<Node>(*client_).updateStatus(*made);
    ASSERT_TRUE(status) << status.error().describe();
  }

  template <class T>
  void refresh(kube::Cache& cache) {
    auto listed = client_->list(kube::kindOf<T>(client_->registry()), "", {});
    ASSERT_TRUE(listed) << listed.error().describe();
    cache.replace(listed->items);
  }

  PassReport pass(DisruptionController* controller = nullptr) {
    refresh<Pod>(pods_);
    refresh<Node>(nodes_);
    refresh<NodeClaim>(claims_);
    refresh<NodePool>(pools_);
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                             DisruptionController::kSingletonKey);
    auto report =
        (controller != nullptr ? controller : controller_.get())->disrupt(caches_, context);
    EXPECT_TRUE(report) << report.error().message();
    return report.value_or(PassReport{});
  }

  std::vector<NodeClaim> claims() {
    auto got = kube::Typed<NodeClaim>(*client_).list("");
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(std::vector<NodeClaim>{});
  }

  std::optional<NodeClaim> claim(const std::string& name) {
    auto got = kube::Typed<NodeClaim>(*client_).get("", name);
    return got ? std::optional(*got) : std::nullopt;
  }

  std::optional<Command> command(const std::string& name) {
    auto got = claim(name);
    if (!got || !got->metadata.annotations.contains(api::karpenter::kDisruptionAnnotation)) {
      return std::nullopt;
    }
    auto decoded =
        decodeCommand(got->metadata.annotations.at(api::karpenter::kDisruptionAnnotation));
    return decoded ? std::optional(*decoded) : std::nullopt;
  }

  bool tainted(const std::string& claimName) {
    auto node = kube::Typed<Node>(*client_).get("", "node-" + claimName);
    EXPECT_TRUE(node) << node.error().describe();
    for (const auto& taint : node->spec.taints) {
      if (taint.key == api::karpenter::kDisruptedTaintKey && taint.effect == "NoSchedule") {
        return true;
      }
    }
    return false;
  }

  // What the termination flow and kube-scheduler would do once `candidate` is deleted: its pods
  // move to `replacement`'s Node and its own Node goes.
  void drain(const std::string& candidate, const std::string& replacement) {
    auto pods = kube::Typed<Pod>(*client_).list("default");
    ASSERT_TRUE(pods) << pods.error().describe();
    kube::DeleteOptions now;
    now.gracePeriodSeconds = 0;
    for (const Pod& pod : *pods) {
      if (pod.spec.nodeName != "node-" + candidate) {
        continue;
      }
      ASSERT_TRUE(kube::Typed<Pod>(*client_).remove("default", pod.metadata.name, now));
      bindPod(pod.metadata.name + "-moved", "900m", replacement);
    }
    ASSERT_TRUE(kube::Typed<Node>(*client_).remove("", "node-" + candidate));
  }

  // The claims that name `candidate` as the one they replace.
  std::vector<std::string> replacementsOf(const std::string& candidate) {
    std::vector<std::string> out;
    for (const auto& c : claims()) {
      auto it = c.metadata.annotations.find(api::karpenter::kReplacesAnnotation);
      if (it != c.metadata.annotations.end() && it->second == candidate) {
        out.push_back(c.metadata.name);
      }
    }
    return out;
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  core::FakeClock clock_{std::chrono::floor<std::chrono::seconds>(core::systemClock().now())};
  runtime::Registry metrics_;
  cloud::testing::FakeCloudProvider cloud_;
  DisruptionOptions options_;
  kube::Cache pods_, nodes_, claims_, pools_, daemonSets_;
  provisioning::ClusterCaches caches_;
  std::unique_ptr<DisruptionController> controller_;
};

}  // namespace nodewright::controllers::disruption::testing
