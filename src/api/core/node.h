#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/core/pod.h"
#include "api/core/taint.h"
#include "api/meta.h"
#include "api/reflect/schema.h"

// core/v1 Node, modelled for node-lifecycle controllers: identity (providerID), taints,
// schedulability, resources, conditions, addresses and what the kubelet reports about itself.
namespace nodewright::api::corev1 {

struct NodeSpec {
  std::string podCIDR;
  std::vector<std::string> podCIDRs;
  std::string providerID;
  bool unschedulable = false;
  std::vector<Taint> taints;
  Json unknown;  // configSource, externalID
};
const reflect::StructSchema& describe(reflect::Tag<NodeSpec>);

struct NodeCondition {
  std::string type;
  std::string status;
  core::Time lastHeartbeatTime;
  core::Time lastTransitionTime;
  std::string reason;
  std::string message;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NodeCondition>);

struct NodeAddress {
  std::string type;  // Hostname, InternalIP, ExternalIP, InternalDNS, ExternalDNS
  std::string address;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NodeAddress>);

struct NodeSystemInfo {
  std::string machineID;
  std::string systemUUID;
  std::string bootID;
  std::string kernelVersion;
  std::string osImage;
  std::string containerRuntimeVersion;
  std::string kubeletVersion;
  std::string kubeProxyVersion;
  std::string operatingSystem;
  std::string architecture;
  Json unknown;  // swap and later additions
};
const reflect::StructSchema& describe(reflect::Tag<NodeSystemInfo>);

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  NodeSystemInfo nodeInfo;
  Json unknown;  // phase, daemonEndpoints, images, volumesInUse, volumesAttached, config, ...
};
const reflect::StructSchema& describe(reflect::Tag<NodeStatus>);

struct Node {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Node>);

// The condition of `type`, or nullptr.
const NodeCondition* findCondition(const NodeStatus& status, std::string_view type);

}  // namespace nodewright::api::corev1
