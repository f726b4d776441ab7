#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/karpenter/well_known.h"
#include "controllers/nodeclaim/conditions.h"
#include "support/e2e/cluster.h"
#include "support/kube/objects.h"

// What the drift end-to-end tests share: a three-node workload under a PodDisruptionBudget, a
// NodePool whose budget lets one node be disrupted at a time, and a watch over a rollout that
// checks, at every look, the budget and the pods' availability.
namespace nodewright::e2e::testing {

// Three pods that must each have a node, at most one away at a time.
inline constexpr const char* kSpreadWorkload = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 0
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector:
                matchLabels:
                  app: web
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

// The end-to-end NodePool with a disruption budget of `nodes`.
inline std::string nodePoolWithBudget(const std::string& nodes) {
  return std::string(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
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
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
        - key: karpenter.k8s.aws/instance-cpu
          operator: Lt
          values: ["9"]
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    budgets:
      - nodes: ")") +
         nodes + R"("
)";
}

inline std::string instanceIdOf(const api::karpenter::NodeClaim& claim) {
  const std::string& id = claim.status.providerID;
  return id.substr(id.rfind('/') + 1);
}

// What a rollout looked like from the outside, sampled at every look.
struct RolloutWatch {
  size_t mostInCommand = 0;  // NodeClaims carrying a disruption command at once
  size_t fewestRunning = 3;  // web pods running and not terminating
  size_t looks = 0;

  void look(EmbeddedCluster& cluster) {
    ++looks;
    size_t inCommand = 0;
    for (const auto& claim : cluster.nodeClaims()) {
      inCommand +=
          claim.metadata.annotations.contains(api::karpenter::kDisruptionAnnotation) ? 1 : 0;
    }
    mostInCommand = std::max(mostInCommand, inCommand);
    size_t running = 0;
    for (const auto& pod : cluster.pods()) {
      running += pod.status.phase == "Running" && !pod.metadata.deletionTimestamp ? 1 : 0;
    }
    fewestRunning = std::min(fewestRunning, running);
  }
};

inline bool isDrifted(const api::karpenter::NodeClaim& claim) {
  return controllers::nodeclaim::isTrue(claim.status.conditions, api::karpenter::kDrifted);
}

}  // namespace nodewright::e2e::testing
