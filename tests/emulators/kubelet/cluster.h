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

using api::corev1::Node;
using api::corev1::Pod;

inline core::Quantity q(const std::string& text) {
  auto parsed = core::Quantity::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value_or(core::Quantity());
}

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

// A Ready node as a kubelet reports it, with hostname and zone labels.
inline Node readyNode(const std::string& name, const std::string& cpu, const std::string& memory,
                      int pods, const std::string& zone = "us-east-1a") {
  Node node;
  node.apiVersion = "v1";
  node.kind = "Node";
  node.metadata.name = name;
  node.metadata.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  api::corev1::ResourceList resources = {
      {"cpu", q(cpu)}, {"memory", q(memory)}, {"pods", core::Quantity::fromInt(pods)}};
  node.status.capacity = resources;
  node.status.allocatable = resources;
  api::corev1::NodeCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  ready.reason = "KubeletReady";
  node.status.conditions = {ready};
  return node;
}

inline api::corev1::Taint taint(const std::string& key, const std::string& value,
                                const std::string& effect) {
  api::corev1::Taint t;
  t.key = key;
  t.value = value;
  t.effect = effect;
  return t;
}

// A pod of one container requesting `cpu` (and `memory` when set), labelled app=`app`.
inline Pod pendingPod(const std::string& name, const std::string& cpu,
                      const std::string& memory = "", const std::string& app = "web") {
  Pod pod;
  pod.apiVersion = "v1";
  pod.kind = "Pod";
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.metadata.labels = {{"app", app}};
  api::corev1::Container container;
  container.name = "app";
  container.image = "registry.k8s.io/pause";
  if (!cpu.empty()) {
    container.resources.requests["cpu"] = q(cpu);
  }
  if (!memory.empty()) {
    container.resources.requests["memory"] = q(memory);
  }
  pod.spec.containers = {container};
  return pod;
}

// A DaemonSet `name` in default whose pods (app=`name`) request `cpu` and `memory`.
inline api::corev1::DaemonSet daemonSet(const std::string& name, const std::string& cpu,
                                        const std::string& memory) {
  api::corev1::DaemonSet set;
  set.apiVersion = "apps/v1";
  set.kind = "DaemonSet";
  set.metadata.name = name;
  set.metadata.namespace_ = "default";
  set.spec.selector = api::LabelSelector{{{"app", name}}, {}};
  set.spec.template_.metadata.labels = {{"app", name}};
  set.spec.template_.spec = pendingPod("unused", cpu, memory).spec;
  return set;
}

}  // namespace nodewright::emulators::kubelet::testing
