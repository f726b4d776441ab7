#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "emulators/kubelet/cluster.h"
#include "emulators/kubelet/node_agent.h"
#include "emulators/kubelet/node_builder.h"
#include "emulators/kubelet/objects.h"
#include "support/cloud/aws/provider_fixture.h"

// The node agent over the whole AWS provider (AwsStack) against a real EC2 peer: the project's
// emulator by default, moto when a test starts the stack against it. NodeClaims are created in
// the API server and launched through the provider, then given the status Karpenter's
// lifecycle controller writes (provider ID, capacity), as the agent reads them.
namespace nodewright::emulators::kubelet::testing {

class AgentTest : public cloud::aws::testing::ProviderTest {
 protected:
  void TearDown() override { cluster_.stop(); }

  // The agent (and, with `workloads`, the workload controllers) on the cluster's manager.
  void startAgent(bool workloads = false) {
    agent_ = std::make_unique<NodeAgent>(*cluster_.client, provider(), cluster_.clock, options_);
    agent_->setup(*cluster_.manager);
    if (workloads) {
      workloads_ = std::make_unique<WorkloadControllers>(*cluster_.client, cluster_.clock);
      workloads_->setup(*cluster_.manager);
    }
    cluster_.start();
  }

  // A NodeClaim of `nodeClass` in the API server, launched through the provider, with the
  // launched machine's provider ID, capacity and allocatable in its status.
  cloud::Machine launch(const std::string& name, const std::string& nodeClass,
                        const std::vector<std::string>& types,
                        std::vector<api::karpenter::Taint> startupTaints = {},
                        std::vector<api::karpenter::Taint> taints = {}) {
    auto claim = cloud::aws::testing::nodeClaim(name, nodeClass, types);
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.uid.clear();
    claim.spec.startupTaints = std::move(startupTaints);
    claim.spec.taints = std::move(taints);
    auto stored = cluster_.nodeClaims.create(claim);
    EXPECT_TRUE(stored) << stored.error().describe();
    if (!stored) {
      return {};
    }
    auto machine = provider().create(*stored);
    EXPECT_TRUE(machine) << machine.error().message();
    if (!machine) {
      return {};
    }
    EXPECT_FALSE(machine->capacity.empty());
    stored->status.providerID = machine->providerID;
    stored->status.imageID = machine->imageID;
    stored->status.capacity = machine->capacity;
    stored->status.allocatable = machine->allocatable;
    auto written = cluster_.nodeClaims.updateStatus(*stored);
    EXPECT_TRUE(written) << written.error().describe();
    return *machine;
  }

  // The Node of `machine`, once the agent registered it.
  std::optional<Node> awaitNode(const cloud::Machine& machine) {
    const std::string name = nodeNameOf(machine.providerID);
    EXPECT_TRUE(cluster_.advanceUntil([&] { return cluster_.node(name).has_value(); }))
        << "no node for " << machine.providerID;
    return cluster_.node(name);
  }

  // What Karpenter's registration does to a new Node: the NodeClaim's taints and startup taints
  // on, karpenter.sh/unregistered off, the NodeClaim as owner.
  void registerAsKarpenter(const std::string& nodeName, const std::string& claimName) {
    auto claim = cluster_.nodeClaims.get("", claimName);
    ASSERT_TRUE(claim) << claim.error().describe();
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto node = cluster_.nodes.get("", nodeName);
      ASSERT_TRUE(node) << node.error().describe();
      auto& taints = node->spec.taints;
      std::erase_if(taints, [](const auto& t) { return t.key == kUnregisteredTaintKey; });
      for (const auto* list : {&claim->spec.taints, &claim->spec.startupTaints}) {
        for (const auto& t : *list) {
          taints.push_back(taint(t.key, t.value, t.effect));
        }
      }
      api::OwnerReference owner;
      owner.apiVersion = "karpenter.sh/v1";
      owner.kind = "NodeClaim";
      owner.name = claimName;
      owner.uid = claim->metadata.uid;
      owner.blockOwnerDeletion = true;
      node->metadata.ownerReferences = {owner};
      auto updated = cluster_.nodes.update(*node);
      if (updated) {
        return;
      }
      ASSERT_TRUE(updated.error().is(kube::Reason::Conflict)) << updated.error().describe();
    }
    FAIL() << "registration of " << nodeName << " kept conflicting";
  }

  NodeAgentOptions options_;
  Cluster cluster_;
  std::unique_ptr<NodeAgent> agent_;
  std::unique_ptr<WorkloadControllers> workloads_;
};

}  // namespace nodewright::emulators::kubelet::testing
