#include "emulators/kubelet/objects.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/hash.h"

namespace nodewright::emulators::kubelet {

bool isManaged(const api::corev1::Node& node) {
  return node.metadata.annotations.contains(kManagedAnnotation);
}

bool isRegistered(const api::corev1::Node& node) {
  return std::none_of(node.spec.taints.begin(), node.spec.taints.end(),
                      [](const api::corev1::Taint& t) { return t.key == kUnregisteredTaintKey; });
}

bool isNodeReady(const api::corev1::Node& node) {
  const auto* ready = api::corev1::findCondition(node.status, "Ready");
  return ready != nullptr && ready->status == "True";
}

bool kubeletStopped(const api::corev1::Node& node) {
  auto it = node.metadata.annotations.find(kKubeletFaultAnnotation);
  return it != node.metadata.annotations.end() && it->second == kKubeletStopped;
}

std::string internalIp(const api::corev1::Node& node) {
  for (const auto& address : node.status.addresses) {
    if (address.type == "InternalIP") {
      return address.address;
    }
  }
  return "";
}

bool isPodTerminal(const api::corev1::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool isPodReady(const api::corev1::Pod& pod) {
  const auto* ready = api::corev1::findCondition(pod.status, "Ready");
  return ready != nullptr && ready->status == "True";
}

bool isPodActive(const api::corev1::Pod& pod) {
  return !isPodTerminal(pod) && !pod.metadata.deletionTimestamp;
}

bool isControlledBy(const api::ObjectMeta& meta, const std::string& uid) {
  return std::any_of(meta.ownerReferences.begin(), meta.ownerReferences.end(),
                     [&](const api::OwnerReference& ref) {
                       return ref.controller.value_or(false) && ref.uid == uid;
                     });
}

std::string fakeIp(std::string_view seed, int prefix) {
  core::Hasher hasher;
  hasher.addString(seed);
  const uint64_t h = hasher.value();
  // .0 and .255 are avoided so the address is a usable host address.
  return fmt::format("{}.{}.{}.{}", prefix, (h >> 16) & 0xff, (h >> 8) & 0xff, 1 + (h % 254));
}

api::corev1::Pod podFromTemplate(const api::ObjectMeta& owner, const std::string& ownerKind,
                                 const api::corev1::PodTemplateSpec& tmpl) {
  api::corev1::Pod pod;
  pod.apiVersion = "v1";
  pod.kind = "Pod";
  pod.metadata.generateName = owner.name + "-";
  pod.metadata.namespace_ = owner.namespace_;
  pod.metadata.labels = tmpl.metadata.labels;
  pod.metadata.annotations = tmpl.metadata.annotations;
  api::OwnerReference ref;
  ref.apiVersion = "apps/v1";
  ref.kind = ownerKind;
  ref.name = owner.name;
  ref.uid = owner.uid;
  ref.controller = true;
  ref.blockOwnerDeletion = true;
  pod.metadata.ownerReferences = {ref};
  pod.spec = tmpl.spec;
  return pod;
}

}  // namespace nodewright::emulators::kubelet
