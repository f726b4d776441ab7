#include "controllers/nodeclaim/consolidatable_controller.h"

#include <algorithm>

#include "api/core/pod.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/drain.h"

namespace nodewright::controllers::nodeclaim {

using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

ConsolidatableController::ConsolidatableController(kube::Client& client, const kube::Cache& claims,
                                                   const kube::Cache& pools,
                                                   const kube::Cache& pods,
                                                   const core::Clock& clock)
    : client_(client), claims_(claims), pools_(pools), pods_(pods), clock_(clock) {}

std::pair<std::vector<std::string>, std::optional<core::TimePoint>>
ConsolidatableController::podsOn(const std::string& nodeName) const {
  std::vector<std::string> uids;
  std::optional<core::TimePoint> scheduled;
  if (nodeName.empty()) {
    return {uids, scheduled};
  }
  for (const api::Object& object : pods_.byIndex(kube::kByNodeName, nodeName)) {
    const auto* pod = object.as<Pod>();
    if (pod == nullptr || isDaemonSetPod(*pod)) {
      continue;
    }
    // A pod on its way out has left as far as consolidation is concerned.
    if (pod->metadata.deletionTimestamp || pod->status.phase == "Succeeded" ||
        pod->status.phase == "Failed") {
      continue;
    }
    uids.push_back(pod->metadata.uid);
    const auto* condition = api::corev1::findCondition(pod->status, "PodScheduled");
    if (condition != nullptr && condition->status == kTrue &&
        !condition->lastTransitionTime.isZero()) {
      const core::TimePoint at = condition->lastTransitionTime.point();
      scheduled = scheduled ? std::max(*scheduled, at) : at;
    }
  }
  std::sort(uids.begin(), uids.end());
  return {uids, scheduled};
}

runtime::Outcome ConsolidatableController::reconcile(const runtime::Request& request,
                                                     runtime::Context&) {
  auto object = claims_.get(request.name);
  const NodeClaim* cached = object ? object->as<NodeClaim>() : nullptr;
  if (cached == nullptr || cached->metadata.deletionTimestamp) {
    std::lock_guard lock(mu_);
    seen_.erase(request.name);
    return runtime::Result::done();
  }
  const auto now = clock_.now();
  auto [uids, eventTime] = podsOn(cached->status.nodeName);
  {
    std::lock_guard lock(mu_);
    auto known = seen_.find(request.name);
    if (known != seen_.end() && known->second != uids) {
      eventTime = now;
    }
    seen_[request.name] = uids;
  }
  std::optional<core::Time> lastPodEvent = cached->status.lastPodEventTime;
  if (eventTime && (!lastPodEvent || *eventTime > lastPodEvent->point())) {
    lastPodEvent = core::Time(std::chrono::time_point_cast<std::chrono::seconds>(*eventTime));
  }

  // Whether to set the condition (else it is cleared), and how long until it would be.
  bool consolidatable = false;
  std::chrono::nanoseconds remaining{0};
  const auto pool =
      pools_.get(cached->metadata.labels.count(api::karpenter::kNodePoolLabel)
                     ? cached->metadata.labels.at(api::karpenter::kNodePoolLabel)
                     : std::string());
  const NodePool* nodePool = pool ? pool->as<NodePool>() : nullptr;
  const auto* initialized = findCondition(cached->status.conditions, api::karpenter::kInitialized);
  if (nodePool != nullptr && initialized != nullptr && initialized->status == kTrue &&
      !(nodePool->spec.disruption.consolidateAfter &&
        nodePool->spec.disruption.consolidateAfter->isNever())) {
    const auto after = nodePool->spec.disruption.consolidateAfter
                           ? nodePool->spec.disruption.consolidateAfter->value()
                           : std::chrono::nanoseconds(0);
    core::TimePoint since = lastPodEvent ? lastPodEvent->point() : core::TimePoint{};
    if (!lastPodEvent) {
      since = initialized->lastTransitionTime.point();
    }
    remaining = after - std::chrono::duration_cast<std::chrono::nanoseconds>(now - since);
    consolidatable = remaining <= std::chrono::nanoseconds(0);
  }

  const bool hasCondition = findCondition(cached->status.conditions, kConsolidatable) != nullptr;
  const bool conditionTrue = isTrue(cached->status.conditions, kConsolidatable);
  if (lastPodEvent != cached->status.lastPodEventTime || consolidatable != conditionTrue ||
      (!consolidatable && hasCondition)) {
    auto updated = kube::updateStatusWithRetry(
        client_, kube::kindOf<NodeClaim>(client_.registry()), "", request.name,
        [&](api::Object& fresh) {
          auto* claim = fresh.as<NodeClaim>();
          if (claim == nullptr || claim->metadata.uid != cached->metadata.uid) {
            return false;
          }
          if (lastPodEvent &&
              (!claim->status.lastPodEventTime || *claim->status.lastPodEventTime < *lastPodEvent)) {
            claim->status.lastPodEventTime = lastPodEvent;
          }
          if (consolidatable) {
            setCondition(claim->status.conditions, kConsolidatable, kTrue, kConsolidatable, "",
                         claim->metadata.generation, now);
          } else {
            std::erase_if(claim->status.conditions, [](const api::Condition& c) {
              return c.type == kConsolidatable;
            });
          }
          return true;
        });
    if (!updated && !updated.error().is(kube::Reason::NotFound)) {
      return core::fail(updated.error().toError().wrap("updating " + request.name));
    }
  }
  if (!consolidatable && remaining > std::chrono::nanoseconds(0)) {
    return runtime::Result::after(remaining);
  }
  return runtime::Result::done();
}

}  // namespace nodewright::controllers::nodeclaim
