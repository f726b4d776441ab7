#include "emulators/kubelet/binder.h"

#include <algorithm>

#include "core/log.h"
#include "emulators/kubelet/objects.h"
#include "emulators/kubelet/planner.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using runtime::Outcome;
using runtime::Result;

// kube-scheduler forgets an assumed pod whose binding the cache never showed after this long.
constexpr std::chrono::seconds kAssumedTtl{30};

bool isUnschedulable(const Pod& pod) {
  const auto* c = api::corev1::findCondition(pod.status, "PodScheduled");
  return c != nullptr && c->status == "False" && c->reason == "Unschedulable";
}

// The scheduling queue's order: higher priority first, then older first.
bool schedulingOrder(const Pod* a, const Pod* b) {
  const int32_t pa = a->spec.priority.value_or(0);
  const int32_t pb = b->spec.priority.value_or(0);
  if (pa != pb) {
    return pa > pb;
  }
  if (a->metadata.creationTimestamp != b->metadata.creationTimestamp) {
    return a->metadata.creationTimestamp < b->metadata.creationTimestamp;
  }
  return std::tie(a->metadata.namespace_, a->metadata.name) <
         std::tie(b->metadata.namespace_, b->metadata.name);
}

}  // namespace

bool isPendingForScheduler(const Pod& pod) {
  return pod.spec.nodeName.empty() && !pod.metadata.deletionTimestamp && !isPodTerminal(pod) &&
         (pod.spec.schedulerName.empty() || pod.spec.schedulerName == kDefaultScheduler);
}

Binder::Binder(kube::Client& client, const core::Clock& clock) : client_(client), clock_(clock) {}

BinderStats Binder::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

Outcome Binder::reconcile(const runtime::Request&, runtime::Context& context) {
  NW_CHECK(pods_ != nullptr && nodes_ != nullptr);
  const std::vector<api::Object> nodeObjects = nodes_->list();
  const std::vector<api::Object> podObjects = pods_->list();
  const core::TimePoint now = clock_.now();

  std::vector<const Node*> nodes;
  nodes.reserve(nodeObjects.size());
  for (const api::Object& object : nodeObjects) {
    nodes.push_back(&typedOf<Node>(object));
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const Node* a, const Node* b) { return a->metadata.name < b->metadata.name; });

  std::map<std::string, const Pod*> byUid;
  std::vector<std::pair<const Pod*, std::string>> bound;
  std::vector<const Pod*> pending;
  for (const api::Object& object : podObjects) {
    const Pod& pod = typedOf<Pod>(object);
    byUid.emplace(pod.metadata.uid, &pod);
    if (!pod.spec.nodeName.empty()) {
      if (!isPodTerminal(pod)) {
        bound.emplace_back(&pod, pod.spec.nodeName);
      }
    } else if (isPendingForScheduler(pod) && !assumed_.contains(pod.metadata.uid)) {
      pending.push_back(&pod);
    }
  }
  // Assumed pods the cache now shows bound (or gone) are its business again.
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    auto pod = byUid.find(it->first);
    if (pod == byUid.end() || !pod->second->spec.nodeName.empty() ||
        now - it->second.at > kAssumedTtl) {
      it = assumed_.erase(it);
    } else {
      bound.emplace_back(pod->second, it->second.node);
      ++it;
    }
  }
  std::sort(pending.begin(), pending.end(), schedulingOrder);

  const auto started = std::chrono::steady_clock::now();
  Planner planner(nodes, bound);
  std::vector<std::pair<const Pod*, Planner::Placement>> placements;
  placements.reserve(pending.size());
  for (const Pod* pod : pending) {
    placements.emplace_back(pod, planner.place(*pod));
  }
  const auto planTime = std::chrono::steady_clock::now() - started;

  uint64_t boundNow = 0;
  uint64_t marked = 0;
  std::optional<kube::ApiError> failure;
  for (const auto& [pod, placement] : placements) {
    if (context.cancelled()) {
      break;
    }
    kube::ApiStatus written;
    if (placement.node) {
      written = bind(*pod, *placement.node);
      if (written) {
        assumed_[pod->metadata.uid] = {*placement.node, now};
        ++boundNow;
      }
    } else if (!isUnschedulable(*pod)) {
      written = markUnschedulable(*pod, placement.reason);
      marked += written ? 1 : 0;
    }
    // NotFound and Conflict: the pod went or was bound by someone else; the next pass sees it.
    if (!written && !written.error().is(kube::Reason::NotFound) &&
        !written.error().is(kube::Reason::Conflict)) {
      failure = written.error();
    }
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.passes;
    stats_.bound += boundNow;
    stats_.unschedulable += marked;
    stats_.lastPlanTime = planTime;
  }
  if (boundNow > 0 || marked > 0) {
    core::logInfo(
        context.log(), "scheduling pass",
        {{"pending", pending.size()},
         {"nodes", nodes.size()},
         {"bound", boundNow},
         {"unschedulable", marked},
         {"plan-us", std::chrono::duration_cast<std::chrono::microseconds>(planTime).count()}});
  }
  if (failure) {
    return apiFailure(*failure, "binding pods");
  }
  return Result::done();
}

kube::ApiStatus Binder::bind(const Pod& pod, const std::string& node) {
  api::Json binding = {{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata",
                        {{"name", pod.metadata.name},
                         {"namespace", pod.metadata.namespace_},
                         {"uid", pod.metadata.uid}}},
                       {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto posted =
      client_.postSubresource(kube::kindOf<Pod>(client_.registry()), pod.metadata.namespace_,
                              pod.metadata.name, "binding", binding);
  if (!posted) {
    return tl::unexpected(posted.error());
  }
  return {};
}

kube::ApiStatus Binder::markUnschedulable(const Pod& pod, const std::string& message) {
  const core::TimePoint now = clock_.now();
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<Pod>(client_.registry()), pod.metadata.namespace_, pod.metadata.name,
      [&](api::Object& object) {
        Pod& current = *object.as<Pod>();
        if (current.metadata.uid != pod.metadata.uid || !current.spec.nodeName.empty() ||
            isUnschedulable(current)) {
          return false;
        }
        auto& conditions = current.status.conditions;
        std::erase_if(conditions, [](const auto& c) { return c.type == "PodScheduled"; });
        api::corev1::PodCondition condition;
        condition.type = "PodScheduled";
        condition.status = "False";
        condition.reason = "Unschedulable";
        condition.message = message;
        condition.lastTransitionTime = core::Time(now);
        conditions.push_back(condition);
        return true;
      });
  if (!written) {
    return tl::unexpected(written.error());
  }
  return {};
}

runtime::Controller& Binder::setup(runtime::Manager& manager) {
  kube::Informer& pods = manager.informerFor<Pod>();
  kube::Informer& nodes = manager.informerFor<Node>();
  pods_ = &pods.cache();
  nodes_ = &nodes.cache();
  runtime::Controller& controller = manager.addController(kName, *this);
  const runtime::Request pass{"", kKey};
  auto affects = [](const Pod& pod) {
    return isPendingForScheduler(pod) || !pod.spec.nodeName.empty();
  };
  kube::EventHandler onPods;
  onPods.onAdd = [&controller, pass](const api::Object& object) {
    if (isPendingForScheduler(typedOf<Pod>(object))) {
      controller.enqueue(pass);
    }
  };
  // A pod becoming pending, getting bound (an assumed pod confirmed), finishing or starting to
  // terminate changes what the next pass sees; status writes of running pods do not.
  onPods.onUpdate = [&controller, pass](const api::Object& before, const api::Object& after) {
    const Pod& a = typedOf<Pod>(before);
    const Pod& b = typedOf<Pod>(after);
    if (isPendingForScheduler(b) || a.spec.nodeName != b.spec.nodeName ||
        isPodTerminal(a) != isPodTerminal(b) ||
        a.metadata.deletionTimestamp.has_value() != b.metadata.deletionTimestamp.has_value()) {
      controller.enqueue(pass);
    }
  };
  onPods.onDelete = [&controller, pass, affects](const api::Object& object) {
    if (affects(typedOf<Pod>(object))) {
      controller.enqueue(pass);
    }
  };
  pods.addHandler(std::move(onPods));
  controller.watchMapped(
      nodes, [pass](const api::Object&) { return std::vector<runtime::Request>{pass}; });
  return controller;
}

}  // namespace nodewright::emulators::kubelet
