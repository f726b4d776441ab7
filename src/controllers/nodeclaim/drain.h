#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "controllers/nodeclaim/metrics.h"
#include "controllers/nodeclaim/options.h"
#include "core/clock.h"
#include "core/error.h"
#include "kube/client.h"
#include "runtime/events.h"

// Drains one node through the Eviction API, as Karpenter's terminator: PodDisruptionBudgets are
// the API server's to enforce (a refusal is a 429, retried later with a per-pod backoff, never
// in a hot loop); non-critical pods go before critical ones; DaemonSet pods, mirror pods,
// terminal pods and pods that tolerate the disrupted taint stay. With a termination deadline
// (the claim's terminationGracePeriod), a pod whose own grace period would outlast it is deleted
// early with a grace ending at the deadline, and once it has passed, what is left is deleted
// without asking the budgets.
namespace nodewright::controllers::nodeclaim {

struct DrainStatus {
  bool done = false;
  int waiting = 0;  // pods still to leave
};

// Whether the drain waits for `pod` to leave (it is neither skipped nor stuck terminating).
bool waitsForEviction(const api::corev1::Pod& pod, core::TimePoint now);
bool isDaemonSetPod(const api::corev1::Pod& pod);
bool isCritical(const api::corev1::Pod& pod);

// Thread-safe: drains of different claims run at once. `client`, `clock`, `metrics` and `events`
// (may be null) must outlive it.
class Drainer {
 public:
  Drainer(kube::Client& client, const core::Clock& clock, runtime::EventRecorder* events,
          Metrics& metrics, const Options& options);

  // One pass over the pods on `nodeName`: deletes the expiring ones, evicts the next group. An
  // API error other than an eviction's refusal is returned. `owner` keys the per-pod backoff.
  core::Result<DrainStatus> drain(const std::string& owner, const std::string& nodeName,
                                  std::optional<core::TimePoint> deadline);
  // Drops the backoff state kept for `owner` (its drain is over).
  void forget(const std::string& owner);

 private:
  struct Backoff {
    core::TimePoint notBefore;
    std::chrono::milliseconds delay{0};
  };
  using Pod = api::corev1::Pod;

  core::Status deleteExpiring(std::vector<Pod>& pods, core::TimePoint deadline);
  core::Status deleteAll(const std::vector<Pod>& pods);
  core::Status evict(const std::string& owner, const std::vector<Pod>& group);
  bool inBackoff(const std::string& owner, const Pod& pod, core::TimePoint now);
  void refused(const std::string& owner, const Pod& pod, core::TimePoint now);
  void podEvent(const Pod& pod, runtime::EventType type, const std::string& reason,
                const std::string& message);

  // Fixed after construction.
  kube::Client& client_;
  kube::Typed<Pod> pods_;
  const core::Clock& clock_;
  runtime::EventRecorder* events_;
  Metrics& metrics_;
  const Options options_;

  std::mutex mu_;
  std::map<std::string, std::map<std::string, Backoff>> backoff_;  // GUARDED_BY(mu_): owner, pod
};

}  // namespace nodewright::controllers::nodeclaim
