#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "api/codec.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/well_known.h"
#include "api/object.h"
#include "kube/client.h"
#include "runtime/api_outcome.h"
#include "runtime/reconciler.h"

// What the node agent's controllers share: the names they agree on and small helpers over pods,
// nodes and the API.
namespace nodewright::emulators::kubelet {

// Karpenter's kubelet registers with this taint (user data); Karpenter's registration removes it.
using api::karpenter::kUnregisteredTaintKey;
// Marks the Nodes this agent registered, so it never deletes or runs pods on anyone else's.
inline constexpr const char* kManagedAnnotation = "nodewright.sh/node-agent";
// A node-agent fault (issue 26): on a managed Node, value "stopped" makes its kubelet stop
// posting status, so the Node's Ready turns Unknown, as kube-controller-manager's node
// lifecycle controller marks a node whose heartbeats stopped (with its grace period folded into
// the moment the fault is set). Removing it restarts the kubelet, which posts Ready again.
inline constexpr const char* kKubeletFaultAnnotation = "nodewright.sh/kubelet-fault";
inline constexpr const char* kKubeletStopped = "stopped";
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";
inline constexpr const char* kDefaultScheduler = "default-scheduler";
inline constexpr const char* kPodTemplateHashLabel = "pod-template-hash";

// Cached objects are shared and immutable: the typed view of one, never null for its kind.
template <class T>
const T& typedOf(const api::Object& object) {
  const T* typed = object.as<T>();
  NW_CHECK(typed != nullptr);
  return *typed;
}

template <class T>
api::Object objectOf(const api::KindInfo& kind, T value) {
  return api::Object(&kind, std::make_shared<T>(std::move(value)));
}

bool isManaged(const api::corev1::Node& node);
// No karpenter.sh/unregistered taint: Karpenter has taken the node over.
bool isRegistered(const api::corev1::Node& node);
bool isNodeReady(const api::corev1::Node& node);
// The node carries the kubelet-stopped fault.
bool kubeletStopped(const api::corev1::Node& node);
// The InternalIP address, or "".
std::string internalIp(const api::corev1::Node& node);

// Succeeded or Failed: the pod holds no resources any more.
bool isPodTerminal(const api::corev1::Pod& pod);
bool isPodReady(const api::corev1::Pod& pod);
// Not terminal and not being deleted: what a workload controller counts as a replica.
bool isPodActive(const api::corev1::Pod& pod);
// `meta` has a controller owner reference to `uid`.
bool isControlledBy(const api::ObjectMeta& meta, const std::string& uid);

// A deterministic fake IPv4 address in `prefix` (first octet), from `seed`.
std::string fakeIp(std::string_view seed, int prefix);

// A new pod of a workload (kind `ownerKind` of apps/v1) from its template: generateName,
// labels, annotations and spec of the template, and the owner as controller.
api::corev1::Pod podFromTemplate(const api::ObjectMeta& owner, const std::string& ownerKind,
                                 const api::corev1::PodTemplateSpec& tmpl);

// Writes `status` through the status subresource unless it equals what `object` has; the
// object of the same uid only (one deleted and created again is left alone), NotFound is done.
template <class T>
runtime::Outcome writeStatusIfChanged(kube::Client& client, const T& object,
                                      const decltype(T::status)& status) {
  if (api::toJson(status) == api::toJson(object.status)) {
    return runtime::Result::done();
  }
  const std::string uid = object.metadata.uid;
  auto written = kube::updateStatusWithRetry(client, kube::kindOf<T>(client.registry()),
                                             object.metadata.namespace_, object.metadata.name,
                                             [&](api::Object& fresh) {
                                               T& current = *fresh.as<T>();
                                               if (current.metadata.uid != uid) {
                                                 return false;
                                               }
                                               current.status = status;
                                               return true;
                                             });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return core::fail(written.error().toError().wrap("writing status of " + object.metadata.name));
  }
  return runtime::Result::done();
}

using runtime::apiFailure;

}  // namespace nodewright::emulators::kubelet
