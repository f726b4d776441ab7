#include "controllers/nodeclaim/drain.h"

#include <algorithm>
#include <memory>

#include "api/core/taint.h"
#include "controllers/nodeclaim/well_known.h"

namespace nodewright::controllers::nodeclaim {
namespace {

using api::corev1::Pod;

// A pod is stuck once it has been terminating a minute past its grace period (a pod's
// deletionTimestamp is the end of its grace): kubelet is gone or wedged, and the machine's
// termination will end it anyway.
constexpr std::chrono::minutes kStuckAfter{1};
constexpr int64_t kDefaultPodGraceSeconds = 30;

bool terminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool terminating(const Pod& pod) {
  return pod.metadata.deletionTimestamp.has_value();
}

bool toleratesDisrupted(const Pod& pod) {
  api::corev1::Taint taint;
  taint.key = kDisruptedTaintKey;
  taint.effect = api::corev1::kTaintEffectNoSchedule;
  return api::corev1::tolerates(pod.spec.tolerations, taint);
}

std::string podKey(const Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

std::string refusalMessage(const kube::ApiError& error) {
  std::string message = error.message;
  for (const auto& cause : error.causes) {
    message += "; " + cause;
  }
  return message;
}

}  // namespace

bool isDaemonSetPod(const Pod& pod) {
  for (const auto& owner : pod.metadata.ownerReferences) {
    if (owner.controller.value_or(false) && owner.kind == "DaemonSet") {
      return true;
    }
  }
  return false;
}

bool isCritical(const Pod& pod) {
  return pod.spec.priorityClassName == "system-cluster-critical" ||
         pod.spec.priorityClassName == "system-node-critical";
}

bool waitsForEviction(const Pod& pod, core::TimePoint now) {
  if (terminal(pod) || isDaemonSetPod(pod) || toleratesDisrupted(pod) ||
      pod.metadata.annotations.contains(kMirrorPodAnnotation)) {
    return false;
  }
  return !terminating(pod) || now <= pod.metadata.deletionTimestamp->point() + kStuckAfter;
}

Drainer::Drainer(kube::Client& client, const core::Clock& clock, runtime::EventRecorder* events,
                 Metrics& metrics, const Options& options)
    : client_(client),
      pods_(client),
      clock_(clock),
      events_(events),
      metrics_(metrics),
      options_(options) {}

core::Result<DrainStatus> Drainer::drain(const std::string& owner, const std::string& nodeName,
                                         std::optional<core::TimePoint> deadline) {
  // A LIST from the server rather than a cache: a pod bound a moment ago must not be left on a
  // machine about to go.
  kube::ListOptions options;
  options.fieldSelector = "spec.nodeName=" + nodeName;
  auto listed = pods_.list("", options);
  if (!listed) {
    return core::fail(listed.error().toError().wrap("listing pods on node " + nodeName));
  }
  const core::TimePoint now = clock_.now();
  std::vector<Pod> waiting;
  for (auto& pod : *listed) {
    if (waitsForEviction(pod, now)) {
      waiting.push_back(std::move(pod));
    }
  }
  DrainStatus status;
  status.waiting = static_cast<int>(waiting.size());
  if (deadline && now >= *deadline) {
    // The grace period is over: nothing waits any longer, budgets included.
    if (auto deleted = deleteAll(waiting); !deleted) {
      return core::fail(deleted.error());
    }
    status.done = true;
    return status;
  }
  if (deadline) {
    if (auto deleted = deleteExpiring(waiting, *deadline); !deleted) {
      return core::fail(deleted.error());
    }
  }
  // Non-critical pods first, as graceful node shutdown orders them: critical ones (DNS, CNI
  // helpers) keep serving the others until those are gone.
  std::vector<Pod> regular;
  std::vector<Pod> critical;
  for (auto& pod : waiting) {
    (isCritical(pod) ? critical : regular).push_back(std::move(pod));
  }
  for (const auto* group : {&regular, &critical}) {
    if (!group->empty()) {
      if (auto evicted = evict(owner, *group); !evicted) {
        return core::fail(evicted.error());
      }
      return status;
    }
  }
  status.done = true;
  return status;
}

// Karpenter's DeleteExpiringPods: a pod needing more time than is left before the deadline is
// deleted now, with exactly the time that is left, so it gets as much of its grace as possible.
core::Status Drainer::deleteExpiring(std::vector<Pod>& pods, core::TimePoint deadline) {
  const core::TimePoint now = clock_.now();
  for (auto& pod : pods) {
    if (terminating(pod)) {
      continue;
    }
    const int64_t grace = pod.spec.terminationGracePeriodSeconds.value_or(kDefaultPodGraceSeconds);
    if (now <= deadline - std::chrono::seconds(grace)) {
      continue;
    }
    kube::DeleteOptions options;
    options.gracePeriodSeconds =
        std::chrono::duration_cast<std::chrono::seconds>(deadline - now).count();
    auto removed = pods_.remove(pod.metadata.namespace_, pod.metadata.name, options);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return core::fail(removed.error().toError().wrap("deleting pod " + podKey(pod)));
    }
    podEvent(pod, runtime::EventType::Warning, "Disrupted",
             "Deleting the pod to accommodate the terminationTime of its node, grace " +
                 std::to_string(*options.gracePeriodSeconds) + "s");
    // Its deletion is under way; the eviction below must not count it again.
    pod.metadata.deletionTimestamp = core::Time(deadline);
  }
  return {};
}

core::Status Drainer::deleteAll(const std::vector<Pod>& pods) {
  for (const auto& pod : pods) {
    kube::DeleteOptions options;
    options.gracePeriodSeconds = 0;
    auto removed = pods_.remove(pod.metadata.namespace_, pod.metadata.name, options);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return core::fail(removed.error().toError().wrap("deleting pod " + podKey(pod)));
    }
    podEvent(pod, runtime::EventType::Warning, "Disrupted",
             "Deleting the pod: its node's terminationGracePeriod has passed");
  }
  return {};
}

core::Status Drainer::evict(const std::string& owner, const std::vector<Pod>& group) {
  const core::TimePoint now = clock_.now();
  for (const auto& pod : group) {
    if (terminating(pod) || inBackoff(owner, pod, now)) {
      continue;
    }
    api::Json body = {
        {"apiVersion", "policy/v1"},
        {"kind", "Eviction"},
        {"metadata", {{"name", pod.metadata.name}, {"namespace", pod.metadata.namespace_}}}};
    auto answer = client_.postSubresource(pods_.kind(), pod.metadata.namespace_, pod.metadata.name,
                                          "eviction", body);
    if (answer) {
      metrics_.evictionRequests.with({"200"}).inc();
      podEvent(pod, runtime::EventType::Normal, "Evicted", "Evicted pod");
      continue;
    }
    const kube::ApiError& error = answer.error();
    metrics_.evictionRequests.with({std::to_string(error.code)}).inc();
    if (error.is(kube::Reason::NotFound)) {
      continue;
    }
    // A budget's refusal (429) or a pod under two budgets (500): the budget decides when, so
    // the pod is asked again after a backoff rather than at every reconcile.
    refused(owner, pod, now);
    if (!error.is(kube::Reason::TooManyRequests) && error.code != 500) {
      return core::fail(error.toError().wrap("evicting pod " + podKey(pod)));
    }
    podEvent(pod, runtime::EventType::Warning, "FailedDraining",
             "Evicting pod " + podKey(pod) + " violates a PDB: " + refusalMessage(error));
  }
  return {};
}

bool Drainer::inBackoff(const std::string& owner, const Pod& pod, core::TimePoint now) {
  std::lock_guard lock(mu_);
  auto byOwner = backoff_.find(owner);
  if (byOwner == backoff_.end()) {
    return false;
  }
  auto it = byOwner->second.find(pod.metadata.uid);
  return it != byOwner->second.end() && now < it->second.notBefore;
}

void Drainer::refused(const std::string& owner, const Pod& pod, core::TimePoint now) {
  std::lock_guard lock(mu_);
  Backoff& backoff = backoff_[owner][pod.metadata.uid];
  backoff.delay = backoff.delay.count() == 0
                      ? options_.evictionBackoff
                      : std::min(backoff.delay * 2, options_.evictionBackoffMax);
  backoff.notBefore = now + std::chrono::duration_cast<std::chrono::microseconds>(backoff.delay);
}

void Drainer::forget(const std::string& owner) {
  std::lock_guard lock(mu_);
  backoff_.erase(owner);
}

void Drainer::podEvent(const Pod& pod, runtime::EventType type, const std::string& reason,
                       const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  events_->event(api::Object(&pods_.kind(), std::make_shared<Pod>(pod)), type, reason, message);
}

}  // namespace nodewright::controllers::nodeclaim
