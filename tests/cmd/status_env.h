#pragma once

// A cluster for `nodewright status`: the embedded API server with a NodePool, Nodes, a
// NodeClaim still launching, pods and an AzureMachine with an operation in flight, written
// through the real client so the command reads them as from any cluster. Header-only:
// tests/cmd/ compiles *_test.cc files only.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/capz/azure_machine.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "kube/client.h"
#include "kube/config.h"
#include "support/apiserver/test_server.h"

namespace nodewright::cmd::testing {

class StatusEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = kube::loadConfig(apiServer_.kubeconfig());
    ASSERT_TRUE(config) << config.error().message();
    auto client = kube::Client::create(*config);
    ASSERT_TRUE(client) << client.error().message();
    client_ = std::move(*client);
  }

  static core::Quantity q(const char* text) { return *core::Quantity::parse(text); }

  void addPool(const char* name, const char* cpuLimit) {
    api::karpenter::NodePool pool;
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = name;
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.limits = {{"cpu", q(cpuLimit)}};
    auto stored = kube::Typed<api::karpenter::NodePool>(*client_).create(pool);
    ASSERT_TRUE(stored) << stored.error().describe();
  }

  // A Ready node of the pool "default" with 2 CPUs and 8Gi allocatable.
  void addNode(const std::string& name, const char* type, const char* capacityType) {
    api::corev1::Node node;
    node.apiVersion = "v1";
    node.kind = "Node";
    node.metadata.name = name;
    node.metadata.labels = {{"karpenter.sh/nodepool", "default"},
                            {"node.kubernetes.io/instance-type", type},
                            {"topology.kubernetes.io/zone", "us-east-1a"},
                            {"karpenter.sh/capacity-type", capacityType}};
    node.spec.providerID = "aws:///us-east-1a/i-" + name;
    auto stored = kube::Typed<api::corev1::Node>(*client_).create(node);
    ASSERT_TRUE(stored) << stored.error().describe();
    stored->status.allocatable = {{"cpu", q("2")}, {"memory", q("8Gi")}, {"pods", q("110")}};
    stored->status.capacity = stored->status.allocatable;
    api::corev1::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    stored->status.conditions = {ready};
    auto updated = kube::Typed<api::corev1::Node>(*client_).updateStatus(*stored);
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  // A claim of "default"; with a providerID it joins that node, without one it is launching.
  void addClaim(const std::string& name, const std::string& providerID, bool drifted) {
    api::karpenter::NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.metadata.labels = {{"karpenter.sh/nodepool", "default"},
                             {"node.kubernetes.io/instance-type", "m5.xlarge"},
                             {"topology.kubernetes.io/zone", "us-east-1b"},
                             {"karpenter.sh/capacity-type", "on-demand"}};
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    api::karpenter::NodeSelectorRequirementWithMinValues requirement;
    requirement.key = "karpenter.sh/capacity-type";
    requirement.operator_ = "In";
    requirement.values = {"on-demand"};
    claim.spec.requirements = {requirement};
    auto stored = kube::Typed<api::karpenter::NodeClaim>(*client_).create(claim);
    ASSERT_TRUE(stored) << stored.error().describe();
    stored->status.providerID = providerID;
    stored->status.capacity = {{"cpu", q("4")}, {"memory", q("16Gi")}};
    stored->status.allocatable = stored->status.capacity;
    if (drifted) {
      api::Condition condition;
      condition.type = "Drifted";
      condition.status = "True";
      condition.reason = "NodePoolDrifted";
      condition.lastTransitionTime = core::Time(core::systemClock().now());
      stored->status.conditions = {condition};
    }
    auto updated = kube::Typed<api::karpenter::NodeClaim>(*client_).updateStatus(*stored);
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  void addPod(const std::string& name, const std::string& node, const char* cpu,
              const char* memory) {
    api::corev1::Pod pod;
    pod.apiVersion = "v1";
    pod.kind = "Pod";
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.spec.nodeName = node;
    api::corev1::Container container;
    container.name = "app";
    container.image = "registry.k8s.io/pause:3.9";
    container.resources.requests = {{"cpu", q(cpu)}, {"memory", q(memory)}};
    pod.spec.containers = {container};
    auto stored = kube::Typed<api::corev1::Pod>(*client_).create(pod);
    ASSERT_TRUE(stored) << stored.error().describe();
  }

  // An AzureMachine whose VM is being created: VMRunning False/Creating and a PUT in flight.
  void addAzureMachine(const std::string& name) {
    api::capz::AzureMachine machine;
    machine.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    machine.kind = "AzureMachine";
    machine.metadata.name = name;
    machine.metadata.namespace_ = "default";
    machine.spec.vmSize = "Standard_D2s_v3";
    machine.spec.sshPublicKey =
        "c3NoLXJzYSBBQUFBQjNOemFDMXljMkVBQUFBREFRQUJBQUFBZ1FDNyBjYXB6QGV4YW1wbGU=";
    machine.spec.osDisk.osType = "Linux";
    machine.spec.osDisk.diskSizeGB = 128;
    auto stored = kube::Typed<api::capz::AzureMachine>(*client_).create(machine);
    ASSERT_TRUE(stored) << stored.error().describe();
    api::capi::CapiCondition running;
    running.type = "VMRunning";
    running.status = "False";
    running.severity = "Info";
    running.reason = "Creating";
    running.lastTransitionTime = core::Time(core::systemClock().now());
    stored->status.conditions = {running};
    stored->status.vmState = "Creating";
    stored->status.longRunningOperationStates = {
        {"PUT", "rg", "virtualmachine", name, "resume-token"}};
    auto updated = kube::Typed<api::capz::AzureMachine>(*client_).updateStatus(*stored);
    ASSERT_TRUE(updated) << updated.error().describe();
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_;
};

}  // namespace nodewright::cmd::testing
