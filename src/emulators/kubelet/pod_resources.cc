#include "emulators/kubelet/pod_resources.h"

#include "api/core/pod_requests.h"

#include <algorithm>

namespace nodewright::emulators::kubelet {

Resources toMilli(const api::corev1::ResourceList& list) {
  Resources out;
  for (const auto& [name, quantity] : list) {
    out[name] = quantity.milliValue();
  }
  return out;
}

void add(Resources& a, const Resources& b) {
  for (const auto& [name, value] : b) {
    a[name] += value;
  }
}

void subtract(Resources& a, const Resources& b) {
  for (const auto& [name, value] : b) {
    a[name] -= value;
  }
}

Resources podMilliRequests(const api::corev1::Pod& pod) {
  return toMilli(api::corev1::podRequests(pod));
}

}  // namespace nodewright::emulators::kubelet
