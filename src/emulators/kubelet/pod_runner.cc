#include "emulators/kubelet/pod_runner.h"

#include "core/log.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using runtime::Outcome;
using runtime::Result;

void setCondition(api::corev1::PodStatus& status, const std::string& type, core::TimePoint now) {
  for (auto& c : status.conditions) {
    if (c.type == type) {
      if (c.status != "True") {
        c.status = "True";
        c.reason.clear();
        c.message.clear();
        c.lastTransitionTime = core::Time(now);
      }
      return;
    }
  }
  api::corev1::PodCondition c;
  c.type = type;
  c.status = "True";
  c.lastTransitionTime = core::Time(now);
  status.conditions.push_back(c);
}

// The pod's QoS class, as the API server would have set it: no requests or limits at all is
// BestEffort; cpu and memory limits equal to the requests in every container is Guaranteed.
std::string qosClassOf(const Pod& pod) {
  bool any = false;
  bool guaranteed = true;
  for (const auto& container : pod.spec.containers) {
    const auto& r = container.resources;
    any = any || !r.requests.empty() || !r.limits.empty();
    for (const char* resource : {"cpu", "memory"}) {
      auto limit = r.limits.find(resource);
      auto request = r.requests.find(resource);
      guaranteed = guaranteed && limit != r.limits.end() &&
                   (request == r.requests.end() || request->second == limit->second);
    }
  }
  if (!any) {
    return "BestEffort";
  }
  return guaranteed ? "Guaranteed" : "Burstable";
}

// What `kubectl get pods` reads for READY and RESTARTS.
api::Json containerStatuses(const Pod& pod, core::TimePoint now) {
  api::Json out = api::Json::array();
  for (const auto& container : pod.spec.containers) {
    out.push_back({{"name", container.name},
                   {"image", container.image},
                   {"imageID", ""},
                   {"containerID", "containerd://" + pod.metadata.uid + "-" + container.name},
                   {"ready", true},
                   {"started", true},
                   {"restartCount", 0},
                   {"state", {{"running", {{"startedAt", core::Time(now).toString()}}}}}});
  }
  return out;
}

}  // namespace

PodRunner::PodRunner(kube::Client& client, const core::Clock& clock,
                     const NodeAgentOptions& options)
    : client_(client), clock_(clock), options_(options) {}

Outcome PodRunner::reconcile(const runtime::Request& request, runtime::Context& context) {
  NW_CHECK(pods_ != nullptr && nodes_ != nullptr);
  auto cached = pods_->get(request.key());
  if (!cached) {
    return Result::done();
  }
  const Pod& pod = typedOf<Pod>(*cached);
  if (pod.spec.nodeName.empty()) {
    return Result::done();
  }
  auto nodeObject = nodes_->get(pod.spec.nodeName);
  if (!nodeObject) {
    return collect(pod, context);
  }
  const Node& node = typedOf<Node>(*nodeObject);
  if (!isManaged(node)) {
    return Result::done();
  }
  if (pod.metadata.deletionTimestamp) {
    return forceDelete(pod, context);
  }
  if (isPodTerminal(pod) || !isNodeReady(node)) {
    return Result::done();  // the Node turning Ready brings the pod back
  }
  if (pod.status.phase == "Running" && isPodReady(pod)) {
    return Result::done();
  }
  return start(pod, node);
}

Outcome PodRunner::collect(const Pod& pod, runtime::Context& context) {
  // The cache may lag a Node just registered: only the API server's NotFound counts.
  auto node = client_.get(kube::kindOf<Node>(client_.registry()), "", pod.spec.nodeName);
  if (node) {
    return Result::after(options_.pollInterval);
  }
  if (!node.error().is(kube::Reason::NotFound)) {
    return apiFailure(node.error(), "reading node " + pod.spec.nodeName);
  }
  core::logInfo(context.log(), "node gone, pod deleted", {{"node", pod.spec.nodeName}});
  return forceDelete(pod, context);
}

Outcome PodRunner::forceDelete(const Pod& pod, runtime::Context&) {
  kube::DeleteOptions options;
  options.gracePeriodSeconds = 0;
  options.preconditionUid = pod.metadata.uid;
  auto removed = client_.remove(kube::kindOf<Pod>(client_.registry()), pod.metadata.namespace_,
                                pod.metadata.name, options);
  if (!removed && !removed.error().is(kube::Reason::NotFound) &&
      !removed.error().is(kube::Reason::Conflict)) {
    return apiFailure(removed.error(), "deleting pod " + pod.metadata.name);
  }
  return Result::done();
}

Outcome PodRunner::start(const Pod& pod, const Node& node) {
  const core::TimePoint now = clock_.now();
  const std::string hostIp = internalIp(node);
  const std::string podIp = fakeIp(pod.metadata.uid, 100);
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<Pod>(client_.registry()), pod.metadata.namespace_, pod.metadata.name,
      [&](api::Object& object) {
        Pod& current = *object.as<Pod>();
        if (current.metadata.uid != pod.metadata.uid || current.spec.nodeName.empty() ||
            current.metadata.deletionTimestamp || isPodTerminal(current)) {
          return false;
        }
        auto& status = current.status;
        status.phase = "Running";
        for (const char* type : {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
          setCondition(status, type, now);
        }
        status.hostIP = hostIp;
        status.podIP = podIp;
        if (status.startTime.isZero()) {
          status.startTime = core::Time(now);
        }
        if (status.qosClass.empty()) {
          status.qosClass = qosClassOf(current);
        }
        if (!status.unknown.is_object()) {
          status.unknown = api::Json::object();
        }
        status.unknown["podIPs"] = api::Json::array({{{"ip", podIp}}});
        status.unknown["hostIPs"] = api::Json::array({{{"ip", hostIp}}});
        status.unknown["containerStatuses"] = containerStatuses(current, now);
        return true;
      });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return apiFailure(written.error(), "starting pod " + pod.metadata.name);
  }
  return Result::done();
}

runtime::Controller& PodRunner::setup(runtime::Manager& manager) {
  kube::Informer& pods = manager.informerFor<Pod>();
  kube::Informer& nodes = manager.informerFor<Node>();
  pods_ = &pods.cache();
  nodes_ = &nodes.cache();
  runtime::ControllerOptions options;
  options.workers = std::max(options_.podWorkers, 1);
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(pods);
  controller.watchMapped(nodes, [this](const api::Object& node) {
    std::vector<runtime::Request> out;
    for (const api::Object& pod : pods_->byIndex(kube::kByNodeName, node.metadata().name)) {
      out.push_back({pod.metadata().namespace_, pod.metadata().name});
    }
    return out;
  });
  return controller;
}

}  // namespace nodewright::emulators::kubelet
