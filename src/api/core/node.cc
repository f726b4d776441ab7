#include "api/core/node.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<NodeSpec>) {
  static const StructSchema s =
      StructBuilder<NodeSpec>("NodeSpec", "How a node is set up.")
          .field<&NodeSpec::podCIDR>("podCIDR", "The pod IP range assigned to the node.")
          .field<&NodeSpec::podCIDRs>("podCIDRs", "Pod IP ranges, one per IP family.")
          .field<&NodeSpec::providerID>(
              "providerID", "The cloud's ID of the machine: <ProviderName>://<ProviderSpecificID>.")
          .field<&NodeSpec::unschedulable>("unschedulable",
                                           "Whether new pods may be scheduled onto the node.")
          .field<&NodeSpec::taints>("taints", "Taints that repel pods that do not tolerate them.")
          .keepUnknownIn<&NodeSpec::unknown>()
          .validate([](const NodeSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateTaintsUnique(spec.taints, path.child("taints"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeCondition>) {
  static const StructSchema s =
      StructBuilder<NodeCondition>("NodeCondition", "One aspect of the node's current state.")
          .field<&NodeCondition::type>("type", "Condition type, e.g. Ready or MemoryPressure.")
          .required()
          .field<&NodeCondition::status>("status", "True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&NodeCondition::lastHeartbeatTime>("lastHeartbeatTime",
                                                    "Last time the kubelet reported it.")
          .field<&NodeCondition::lastTransitionTime>("lastTransitionTime",
                                                     "Last time the status changed.")
          .field<&NodeCondition::reason>("reason", "Machine-readable reason for the last change.")
          .field<&NodeCondition::message>("message", "Human-readable details.")
          .keepUnknownIn<&NodeCondition::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeAddress>) {
  static const StructSchema s =
      StructBuilder<NodeAddress>("NodeAddress", "An address of the node.")
          .field<&NodeAddress::type>(
              "type", "Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.")
          .required()
          .field<&NodeAddress::address>("address", "The address.")
          .required()
          .keepUnknownIn<&NodeAddress::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeSystemInfo>) {
  static const StructSchema s =
      StructBuilder<NodeSystemInfo>("NodeSystemInfo", "What the kubelet reports about the node.")
          .field<&NodeSystemInfo::machineID>("machineID", "The machine ID (/etc/machine-id).")
          .field<&NodeSystemInfo::systemUUID>("systemUUID", "The hardware system UUID.")
          .field<&NodeSystemInfo::bootID>("bootID", "Changes on every reboot.")
          .field<&NodeSystemInfo::kernelVersion>("kernelVersion", "Output of uname -r.")
          .field<&NodeSystemInfo::osImage>("osImage", "The OS image, e.g. Ubuntu 22.04.")
          .field<&NodeSystemInfo::containerRuntimeVersion>(
              "containerRuntimeVersion", "Runtime and version, e.g. containerd://1.7.0.")
          .field<&NodeSystemInfo::kubeletVersion>("kubeletVersion", "The kubelet's version.")
          .field<&NodeSystemInfo::kubeProxyVersion>("kubeProxyVersion",
                                                    "Deprecated kube-proxy version.")
          .field<&NodeSystemInfo::operatingSystem>("operatingSystem", "GOOS, e.g. linux.")
          .field<&NodeSystemInfo::architecture>("architecture", "GOARCH, e.g. amd64 or arm64.")
          .keepUnknownIn<&NodeSystemInfo::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeStatus>) {
  static const StructSchema s =
      StructBuilder<NodeStatus>("NodeStatus", "The observed state of a node.")
          .field<&NodeStatus::capacity>("capacity", "The node's total resources.")
          .field<&NodeStatus::allocatable>("allocatable",
                                           "Resources available to pods (capacity minus "
                                           "reservations).")
          .field<&NodeStatus::conditions>("conditions", "Current conditions of the node.")
          .mapList({"type"})
          .field<&NodeStatus::addresses>("addresses", "Addresses reachable to the node.")
          .field<&NodeStatus::nodeInfo>("nodeInfo", "What the kubelet reports about itself.")
          .keepUnknownIn<&NodeStatus::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<Node>) {
  static const StructSchema s = [] {
    StructBuilder<Node> b("Node", "A worker machine in the cluster.");
    withTypeMeta(b);
    return b.field<&Node::spec>("spec", "How the node is set up.")
        .field<&Node::status>("status", "The observed state of the node.")
        .build();
  }();
  return s;
}

const NodeCondition* findCondition(const NodeStatus& status, std::string_view type) {
  for (const NodeCondition& c : status.conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace nodewright::api::corev1
