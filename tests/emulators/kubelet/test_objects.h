#pragma once

// Nodes, pods and DaemonSets as the node agent's tests and benchmarks build them. Plain objects
// only: no server, no GoogleTest, so the benchmarks can use them too.
#include <stdexcept>
#include <string>

#include "api/core/apps.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "core/quantity.h"

namespace nodewright::emulators::kubelet::testing {

using api::corev1::Node;
using api::corev1::Pod;

// A quantity the caller wrote; a typo is a bug in the test, reported by the exception.
inline core::Quantity q(const std::string& text) {
  auto parsed = core::Quantity::parse(text);
  if (!parsed) {
    throw std::invalid_argument("not a quantity: " + text);
  }
  return *parsed;
}

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
