#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/core/node.h"
#include "api/core/pod.h"

// Resource arithmetic of the scheduler, in exact thousandths (milli) of each resource's unit.
namespace nodewright::emulators::kubelet {

using Resources = std::map<std::string, int64_t>;

inline constexpr const char* kPodsResource = "pods";

// What a pod takes from a node (api::corev1::podRequests), in milli.
Resources podMilliRequests(const api::corev1::Pod& pod);

Resources toMilli(const api::corev1::ResourceList& list);

// a += b, a -= b.
void add(Resources& a, const Resources& b);
void subtract(Resources& a, const Resources& b);

}  // namespace nodewright::emulators::kubelet
