#include "emulators/kubelet/node_lifecycle.h"

#include <algorithm>

#include "api/karpenter/nodeclaim.h"
#include "core/log.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Node;
using api::karpenter::NodeClaim;
using runtime::Outcome;
using runtime::Result;
using Wait = std::optional<std::chrono::nanoseconds>;

Wait earliest(Wait a, Wait b) {
  if (!a) {
    return b;
  }
  if (!b) {
    return a;
  }
  return std::min(*a, *b);
}

// The NodeClaim that launched `node`: its owner reference, else the one with its provider ID.
std::optional<NodeClaim> owningClaim(const Node& node, const kube::Cache& claims) {
  for (const auto& ref : node.metadata.ownerReferences) {
    if (ref.kind == "NodeClaim") {
      if (auto cached = claims.get(ref.name)) {
        return typedOf<NodeClaim>(*cached);
      }
    }
  }
  if (!node.spec.providerID.empty()) {
    for (const api::Object& object : claims.byIndex(kube::kByProviderId, node.spec.providerID)) {
      return typedOf<NodeClaim>(object);
    }
  }
  return std::nullopt;
}

// The Node's Ready condition, added when missing.
api::corev1::NodeCondition& readyCondition(Node& node) {
  for (auto& c : node.status.conditions) {
    if (c.type == "Ready") {
      return c;
    }
  }
  api::corev1::NodeCondition& added = node.status.conditions.emplace_back();
  added.type = "Ready";
  return added;
}

bool isStartupTaint(const api::corev1::Taint& taint, const NodeClaim& claim) {
  return std::any_of(claim.spec.startupTaints.begin(), claim.spec.startupTaints.end(),
                     [&](const api::karpenter::Taint& startup) {
                       return startup.key == taint.key && startup.effect == taint.effect;
                     });
}

}  // namespace

NodeLifecycle::NodeLifecycle(kube::Client& client, const core::Clock& clock,
                             const NodeAgentOptions& options)
    : client_(client), clock_(clock), options_(options) {}

Outcome NodeLifecycle::reconcile(const runtime::Request& request, runtime::Context& context) {
  NW_CHECK(nodes_ != nullptr && claims_ != nullptr);
  auto cached = nodes_->get(request.name);
  if (!cached) {
    std::lock_guard lock(mu_);
    registeredAt_.erase(request.name);
    return Result::done();
  }
  const Node& node = typedOf<Node>(*cached);
  if (!isManaged(node) || node.metadata.deletionTimestamp) {
    return Result::done();
  }
  if (kubeletStopped(node)) {
    if (auto marked = markUnknown(node.metadata.name); !marked) {
      return core::fail(marked.error());
    }
    return Result::done();  // removing the fault brings the node back
  }
  Wait wait;
  if (!isNodeReady(node)) {
    auto ready = markReady(node.metadata.name);
    if (!ready) {
      return core::fail(ready.error());
    }
    if (!*ready) {
      core::logInfo(context.log(), "node ready", {{"node", node.metadata.name}});
    }
    wait = *ready;
  }
  if (isRegistered(node)) {
    auto removed = removeStartupTaints(node);
    if (!removed) {
      return core::fail(removed.error());
    }
    wait = earliest(wait, *removed);
  }
  return wait ? Result::after(*wait) : Result::done();
}

core::Result<Wait> NodeLifecycle::markReady(const std::string& name) {
  const core::TimePoint now = clock_.now();
  auto cached = nodes_->get(name);
  if (!cached) {
    return Wait();
  }
  const auto* ready = api::corev1::findCondition(typedOf<Node>(*cached).status, "Ready");
  // The kubelet's first status (Ready=False) marks when it started.
  const core::TimePoint since = ready != nullptr ? ready->lastTransitionTime.point() : now;
  const core::TimePoint due =
      since + std::chrono::duration_cast<std::chrono::microseconds>(options_.readyDelay);
  if (now < due) {
    return Wait(due - now);
  }
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<Node>(client_.registry()), "", name, [&](api::Object& object) {
        Node& node = *object.as<Node>();
        api::corev1::NodeCondition* condition = &readyCondition(node);
        if (condition->status == "True") {
          return false;
        }
        condition->status = "True";
        condition->reason = "KubeletReady";
        condition->message = "kubelet is posting ready status";
        condition->lastHeartbeatTime = core::Time(now);
        condition->lastTransitionTime = core::Time(now);
        return true;
      });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return core::fail(written.error().toError().wrap("posting node " + name + " ready"));
  }
  return Wait();
}

core::Status NodeLifecycle::markUnknown(const std::string& name) {
  const core::TimePoint now = clock_.now();
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<Node>(client_.registry()), "", name, [&](api::Object& object) {
        Node& node = *object.as<Node>();
        if (!kubeletStopped(node)) {
          return false;
        }
        api::corev1::NodeCondition* condition = &readyCondition(node);
        if (condition->status == "Unknown") {
          return false;
        }
        // The last heartbeat stays what the kubelet last posted, as the node lifecycle
        // controller leaves it.
        condition->status = "Unknown";
        condition->reason = "NodeStatusUnknown";
        condition->message = "Kubelet stopped posting node status.";
        condition->lastTransitionTime = core::Time(now);
        return true;
      });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return core::fail(written.error().toError().wrap("marking node " + name + " unknown"));
  }
  return core::ok();
}

core::Result<Wait> NodeLifecycle::removeStartupTaints(const Node& node) {
  const core::TimePoint now = clock_.now();
  core::TimePoint since;
  {
    std::lock_guard lock(mu_);
    since = registeredAt_.try_emplace(node.metadata.name, now).first->second;
  }
  const core::TimePoint due =
      since + std::chrono::duration_cast<std::chrono::microseconds>(options_.startupTaintDelay);
  auto claim = owningClaim(node, *claims_);
  if (!claim || claim->spec.startupTaints.empty()) {
    return Wait();  // a NodeClaim event brings the node back
  }
  const bool tainted =
      std::any_of(node.spec.taints.begin(), node.spec.taints.end(),
                  [&](const api::corev1::Taint& taint) { return isStartupTaint(taint, *claim); });
  if (!tainted) {
    return Wait();
  }
  if (now < due) {
    return Wait(due - now);
  }
  auto written =
      kube::updateWithRetry(client_, kube::kindOf<Node>(client_.registry()), "", node.metadata.name,
                            [&](api::Object& object) {
                              auto& taints = object.as<Node>()->spec.taints;
                              return std::erase_if(taints, [&](const api::corev1::Taint& t) {
                                       return isStartupTaint(t, *claim);
                                     }) > 0;
                            });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return core::fail(
        written.error().toError().wrap("removing startup taints of " + node.metadata.name));
  }
  return Wait();
}

runtime::Controller& NodeLifecycle::setup(runtime::Manager& manager) {
  kube::Informer& nodes = manager.informerFor<Node>();
  kube::Informer& claims = manager.informerFor<NodeClaim>();
  nodes_ = &nodes.cache();
  claims_ = &claims.cache();
  runtime::ControllerOptions options;
  options.workers = 2;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(nodes);
  controller.watchMapped(claims, [this](const api::Object& object) {
    const NodeClaim& claim = typedOf<NodeClaim>(object);
    std::vector<runtime::Request> out;
    if (!claim.status.nodeName.empty()) {
      out.push_back({"", claim.status.nodeName});
    } else if (!claim.status.providerID.empty()) {
      for (const api::Object& node :
           nodes_->byIndex(kube::kByProviderId, claim.status.providerID)) {
        out.push_back({"", node.metadata().name});
      }
    }
    return out;
  });
  return controller;
}

}  // namespace nodewright::emulators::kubelet
