#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/core/apps.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "core/clock.h"
#include "core/quantity.h"
#include "emulators/kubelet/test_objects.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// What the node agent's tests run against: the embedded API server and a Manager on a FakeClock
// (informers on the system clock, so a dropped watch reconnects without the test's help). The
// controllers under test are added by the test, then start() runs the manager on its thread;
// the destructor stops it before anything it uses goes. One per test.
namespace nodewright::emulators::kubelet::testing {

class Cluster {
 public:
  Cluster() {
    runtime::ManagerOptions options;
    options.clock = &clock;
    options.metrics = &metrics;
    options.informerDefaults.clock = &core::systemClock();
    manager = std::make_unique<runtime::Manager>(*client, options);
  }
  ~Cluster() { stop(); }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  void start() {
    thread_ = std::jthread([this](std::stop_token stop) {
      auto ran = manager->run(stop);
      EXPECT_TRUE(ran) << ran.error().message();
    });
    ASSERT_TRUE(kube::testing::eventually([&] { return manager->cachesSynced(); }));
  }
  void stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

  // Polls `condition`, advancing the fake clock by `step` between polls, until it holds or 30 s
  // of real time pass: requeueAfter delays and backoffs elapse only as the clock moves.
  bool advanceUntil(const std::function<bool()>& condition,
                    std::chrono::milliseconds step = std::chrono::milliseconds(100)) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) {
        return true;
      }
      clock.advance(step);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return condition();
  }

  // Reconciles of `controller` that ended with `result` (success, requeue_after, error...).
  double reconciles(const std::string& controller, const std::string& result) {
    return metrics
        .counter("controller_runtime_reconcile_total",
                 "Total number of reconciliations per controller.", {"controller", "result"})
        .with({controller, result})
        .value();
  }

  std::optional<Node> node(const std::string& name) {
    auto got = nodes.get("", name);
    return got ? std::optional<Node>(*got) : std::nullopt;
  }
  // Changes the Node as stored, re-reading on a conflict: the agent writes its status meanwhile.
  bool updateNode(const std::string& name, const std::function<void(Node&)>& change) {
    auto updated = kube::updateWithRetry(*client, nodes.kind(), "", name, [&](api::Object& object) {
      change(*object.as<Node>());
      return true;
    });
    EXPECT_TRUE(updated) << updated.error().describe();
    return updated.has_value();
  }
  std::optional<Pod> pod(const std::string& name, const std::string& ns = "default") {
    auto got = pods.get(ns, name);
    return got ? std::optional<Pod>(*got) : std::nullopt;
  }
  std::vector<Pod> podList(const std::string& labelSelector = "",
                           const std::string& ns = "default") {
    kube::ListOptions options;
    options.labelSelector = labelSelector;
    auto got = pods.list(ns, options);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(std::vector<Pod>{});
  }
  // Where each named pod is bound ("" while pending).
  std::string nodeOf(const std::string& podName) {
    auto p = pod(podName);
    return p ? p->spec.nodeName : "<gone>";
  }

  core::FakeClock clock;
  runtime::Registry metrics;
  apiserver::testing::TestApiServer apiServer;
  std::unique_ptr<kube::Client> client =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer));
  kube::Typed<Node> nodes{*client};
  kube::Typed<Pod> pods{*client};
  kube::Typed<api::corev1::Deployment> deployments{*client};
  kube::Typed<api::corev1::ReplicaSet> replicaSets{*client};
  kube::Typed<api::corev1::DaemonSet> daemonSets{*client};
  kube::Typed<api::karpenter::NodeClaim> nodeClaims{*client};
  std::unique_ptr<runtime::Manager> manager;

 private:
  std::jthread thread_;
};

}  // namespace nodewright::emulators::kubelet::testing
