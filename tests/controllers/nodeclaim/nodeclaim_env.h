#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/core/event.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/policy.h"
#include "api/karpenter/nodeclaim.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/controllers.h"
#include "controllers/nodeclaim/well_known.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/test_server.h"
#include "support/cloud/fake_cloud_provider.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// The NodeClaim controllers running in a Manager against the embedded API server, with a fake
// cloud and a FakeClock. The clock starts a little before the wall clock, because the API server
// stamps deletionTimestamps with real time: a test reads one and advances the clock to exactly
// that instant plus what it wants. The test plays kubelet (Nodes, pod status, deleting evicted
// pods) itself. One per test.
namespace nodewright::controllers::nodeclaim::testing {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using cloud::testing::FakeCloudProvider;
using kube::testing::eventually;

inline core::TimePoint startOfClock() {
  return std::chrono::floor<std::chrono::seconds>(core::systemClock().now()) -
         std::chrono::seconds(30);
}

class NodeClaimEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime::ManagerOptions options;
    options.clock = &clock_;
    options.metrics = &registry_;
    manager_ = std::make_unique<runtime::Manager>(*client_, options);
    controllers_ = setup(*manager_, cloud_, options_);
    runner_ = std::jthread([this](std::stop_token stop) { (void)manager_->run(stop); });
    ASSERT_TRUE(eventually([this] { return manager_->cachesSynced(); }));
  }
  void TearDown() override {
    runner_.request_stop();
    runner_.join();
  }

  NodeClaim newClaim(const std::string& name) {
    NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.metadata.labels[kNodePoolLabel] = "default";
    claim.spec.nodeClassRef.group = "karpenter.k8s.aws";
    claim.spec.nodeClassRef.kind = "EC2NodeClass";
    claim.spec.nodeClassRef.name = "default";
    return claim;
  }
  NodeClaim create(const NodeClaim& claim) {
    auto created = claims_.create(claim);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(claim);
  }
  std::optional<NodeClaim> stored(const std::string& name) {
    auto got = claims_.get("", name);
    if (!got) {
      EXPECT_TRUE(got.error().is(kube::Reason::NotFound)) << got.error().describe();
      return std::nullopt;
    }
    return *got;
  }
  bool gone(const std::string& name) {
    return eventually([&] { return !claims_.get("", name).has_value(); });
  }
  // Waits until the claim's condition `type` has `status` (and `reason` when given).
  bool awaitCondition(const std::string& name, const std::string& type, const std::string& status,
                      const std::string& reason = "") {
    return eventually([&] {
      auto claim = claims_.get("", name);
      if (!claim) {
        return false;
      }
      const api::Condition* c = findCondition(claim->status.conditions, type);
      return c != nullptr && c->status == status && (reason.empty() || c->reason == reason);
    });
  }
  api::Condition condition(const std::string& name, const std::string& type) {
    auto claim = stored(name);
    const api::Condition* c = claim ? findCondition(claim->status.conditions, type) : nullptr;
    return c ? *c : api::Condition{};
  }
  NodeClaim launched(const std::string& name) {
    EXPECT_TRUE(awaitCondition(name, kLaunched, kTrue));
    return stored(name).value_or(NodeClaim{});
  }

  // What kubelet registers for `claim`'s machine: NotReady, with the unregistered taint.
  Node registerNode(const NodeClaim& claim, const std::string& name) {
    Node node;
    node.apiVersion = "v1";
    node.kind = "Node";
    node.metadata.name = name;
    node.metadata.labels["kubernetes.io/hostname"] = name;
    node.spec.providerID = claim.status.providerID;
    api::corev1::Taint unregistered;
    unregistered.key = kUnregisteredTaintKey;
    unregistered.effect = "NoExecute";
    node.spec.taints.push_back(unregistered);
    auto created = nodes_.create(node);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(node);
  }
  void mutateNode(const std::string& name, const std::function<void(Node&)>& change,
                  bool status = false) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto node = nodes_.get("", name);
      ASSERT_TRUE(node) << node.error().describe();
      change(*node);
      auto written = status ? nodes_.updateStatus(*node) : nodes_.update(*node);
      if (written) {
        return;
      }
      ASSERT_TRUE(written.error().is(kube::Reason::Conflict)) << written.error().describe();
    }
    FAIL() << "node " << name << " kept conflicting";
  }
  void setReady(const std::string& name, bool ready) {
    mutateNode(
        name,
        [ready](Node& node) {
          node.status.conditions.clear();
          api::corev1::NodeCondition condition;
          condition.type = "Ready";
          condition.status = ready ? "True" : "False";
          node.status.conditions.push_back(condition);
        },
        true);
  }
  std::optional<Node> node(const std::string& name) {
    auto got = nodes_.get("", name);
    return got ? std::optional<Node>(*got) : std::nullopt;
  }

  // A Running, Ready pod bound to `nodeName`.
  Pod runPod(const std::string& name, const std::string& nodeName,
             const std::function<void(Pod&)>& edit = {}) {
    Pod pod;
    pod.apiVersion = "v1";
    pod.kind = "Pod";
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.metadata.labels["app"] = "web";
    pod.spec.nodeName = nodeName;
    api::corev1::Container container;
    container.name = "app";
    container.image = "registry.k8s.io/pause:3.9";
    pod.spec.containers.push_back(container);
    if (edit) {
      edit(pod);
    }
    auto created = pods_.create(pod);
    EXPECT_TRUE(created) << created.error().describe();
    if (!created) {
      return pod;
    }
    created->status.phase = "Running";
    api::corev1::PodCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    created->status.conditions = {ready};
    auto running = pods_.updateStatus(*created);
    EXPECT_TRUE(running) << running.error().describe();
    return running.value_or(*created);
  }
  std::optional<Pod> pod(const std::string& name) {
    auto got = pods_.get("default", name);
    return got ? std::optional<Pod>(*got) : std::nullopt;
  }
  // kubelet finishing a pod's termination.
  void finishPod(const std::string& name) {
    kube::DeleteOptions options;
    options.gracePeriodSeconds = 0;
    auto removed = pods_.remove("default", name, options);
    ASSERT_TRUE(removed) << removed.error().describe();
  }
  bool terminating(const std::string& name) {
    auto got = pod(name);
    return got && got->metadata.deletionTimestamp.has_value();
  }

  // A counter of the controllers' metrics (counted just after the write a test sees, so await
  // it); `label` names its one label, `value` the child.
  double counter(const std::string& family, const std::string& label, const std::string& value) {
    return registry_.counter(family, "", {label}).with({value}).value();
  }
  // The family's total over every series of NodePool "default", whatever its other labels.
  double poolCounter(const std::string& name) {
    auto& family = registry_.counter(name, "", {"nodepool"});
    const auto& names = family.labelNames();
    const auto at = std::find(names.begin(), names.end(), "nodepool") - names.begin();
    double total = 0;
    for (const auto& [values, counter] : family.children()) {
      if (values.at(at) == "default") {
        total += counter->value();
      }
    }
    return total;
  }
  // Reasons of the Events recorded about `name`, once the recorder has sent what it queued.
  std::vector<std::string> eventReasons(const std::string& name) {
    manager_->events().flush();
    std::vector<std::string> reasons;
    auto events = events_.list("");
    EXPECT_TRUE(events) << events.error().describe();
    for (const auto& e : events.value_or(std::vector<api::corev1::Event>{})) {
      if (e.involvedObject.name == name) {
        reasons.push_back(e.reason);
      }
    }
    return reasons;
  }

  core::FakeClock clock_{startOfClock()};
  runtime::Registry registry_;
  FakeCloudProvider cloud_;
  Options options_;
  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<NodeClaim> claims_{*client_};
  kube::Typed<Node> nodes_{*client_};
  kube::Typed<Pod> pods_{*client_};
  kube::Typed<api::corev1::Event> events_{*client_};
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<Controllers> controllers_;
  std::jthread runner_;
};

}  // namespace nodewright::controllers::nodeclaim::testing
