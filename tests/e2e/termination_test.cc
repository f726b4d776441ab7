#include <gtest/gtest.h>

#include "api/core/event.h"

#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// Termination end to end: `kubectl delete nodeclaim` drains the node through the Eviction API
// under a PodDisruptionBudget, terminates the machine, and only then lets the NodeClaim go; the
// drained pods run again elsewhere.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::allPodsRunning;
using testing::EmbeddedCluster;
using testing::testdata;

constexpr const char* kWorkload = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 4
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: 500m
              memory: 512Mi
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: default
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: web
)";

TEST(TerminationEndToEnd, DeletingANodeClaimDrainsTerminatesThenReleasesIt) {
  EmbeddedCluster cluster;
  cluster.startControllers();
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", testdata("nodepool.yaml")});
  cluster.kubectl({"apply", "-f", "-"}, kWorkload);
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 4); }, 120s));

  const auto claims = cluster.nodeClaims();
  ASSERT_FALSE(claims.empty());
  const auto& victim = claims.front();
  const std::string providerID = victim.status.providerID;
  const std::string nodeName = victim.status.nodeName;
  ASSERT_FALSE(nodeName.empty());
  cluster.kubectl({"delete", "nodeclaim", victim.metadata.name, "--wait=false"});

  // While the claim exists its machine may still run; once it is gone, so is the machine.
  bool machineGoneFirst = true;
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        for (const auto& c : cluster.nodeClaims()) {
          if (c.metadata.name == victim.metadata.name) {
            return false;
          }
        }
        auto machine = cluster.agentStack().provider().get(providerID);
        machineGoneFirst = !machine && machine.error().is(core::Code::NotFound);
        return true;
      },
      120s))
      << "the NodeClaim was never released";
  EXPECT_TRUE(machineGoneFirst) << "the finalizer left before the machine was terminated";
  for (const auto& node : cluster.nodes()) {
    EXPECT_NE(node.metadata.name, nodeName) << "the drained node is still there";
  }
  ASSERT_TRUE(kube::testing::eventually([&] { return allPodsRunning(cluster, 4); }, 120s))
      << "the drained pods do not run again";
  for (const auto& pod : cluster.pods()) {
    EXPECT_NE(pod.spec.nodeName, nodeName);
  }
  // The budget allows one of the four pods to be away at a time: the first drain pass evicts one
  // and is refused for the others.
  EXPECT_TRUE(kube::testing::eventually([&] {
    auto events = kube::Typed<api::corev1::Event>(cluster.client()).list("default");
    return events && std::any_of(events->begin(), events->end(),
                                 [](const auto& e) { return e.reason == "FailedDraining"; });
  })) << "no eviction was refused by the PodDisruptionBudget";
}

}  // namespace
}  // namespace nodewright::e2e
