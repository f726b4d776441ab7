#include "api/core/pod_requests.h"

#include <algorithm>

namespace nodewright::api::corev1 {
namespace {

void add(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, quantity] : from) {
    to[name] += quantity;
  }
}

void maxInto(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, quantity] : from) {
    auto [it, inserted] = to.emplace(name, quantity);
    if (!inserted && it->second < quantity) {
      it->second = quantity;
    }
  }
}

}  // namespace

ResourceList podRequests(const Pod& pod) {
  ResourceList sum;
  for (const auto& c : pod.spec.containers) {
    add(sum, c.resources.requests);
  }
  ResourceList sidecars;  // restartable init containers started so far
  ResourceList initPeak;
  for (const auto& c : pod.spec.initContainers) {
    if (c.restartPolicy == "Always") {
      add(sum, c.resources.requests);
      add(sidecars, c.resources.requests);
      maxInto(initPeak, sidecars);
    } else {
      ResourceList running = c.resources.requests;
      add(running, sidecars);
      maxInto(initPeak, running);
    }
  }
  maxInto(sum, initPeak);
  add(sum, pod.spec.overhead);
  sum["pods"] += core::Quantity::fromInt(1);
  return sum;
}

}  // namespace nodewright::api::corev1
