#pragma once

#include <string>

#include <fmt/format.h>

// The manifests of the end-to-end tests that count nodes (interruption, node repair): a NodePool
// of large general-purpose types (2 vCPUs) and a workload whose pods take 1200m each, so each
// pod has a node of its own and a lost node is a pod to place again.
namespace nodewright::e2e {

// NodePool "default", on EC2NodeClass "default", of `capacityType` ("spot", "on-demand").
inline std::string largeNodePool(const std::string& capacityType) {
  return fmt::format(R"(apiVersion: karpenter.sh/v1
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
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["{}"]
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["m5.large", "m5a.large", "m6i.large", "c5.large", "c6i.large", "r5.large"]
)",
                     capacityType);
}

// Deployment "web" in the default namespace: `replicas` pods, one per large node, that leave
// at once when evicted or deleted.
inline std::string onePodPerNode(int replicas) {
  return fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: {}
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
              cpu: 1200m
)",
                     replicas);
}

}  // namespace nodewright::e2e
