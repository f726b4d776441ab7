#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "api/capz/azure_machine.h"
#include "controllers/capz/azuremachine/machine_status.h"
#include "core/clock.h"
#include "kube/client.h"

// The AzureMachines of namespace "default" as a watch sees them, for machine_scale_bench: when
// each was first seen with the VMCreating reason and first seen ready, on the system clock's
// steady time. The watch starts at construction; restarted from its last resourceVersion when
// the server ends it.
namespace nodewright::bench::capz {

class MachineWatch {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // `client` must outlive the watch.
  explicit MachineWatch(kube::Client& client)
      : thread_([this, &client](std::stop_token stop) { run(client, stop); }) {}

  struct Counts {
    size_t creating = 0;  // seen VMCreating (or ready without a VMCreating write seen)
    size_t ready = 0;
    size_t readyWithoutCreatingSeen = 0;
    SteadyTime lastCreating{};  // when the `creating`-th machine was first seen so
    SteadyTime lastReady{};
  };

  // Waits until `creating` and `ready` machines reach `n` or `deadline` passes; the counts then.
  Counts waitForReady(size_t n, SteadyTime deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!(counts_.ready >= n && counts_.creating >= n) &&
           core::systemClock().steadyNow() < deadline) {
      core::systemClock().waitUntil(lock, cv_, deadline);
    }
    return counts_;
  }
  Counts counts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }

 private:
  struct Seen {
    bool creating = false;
    bool ready = false;
  };

  void run(kube::Client& client, std::stop_token stop) {
    const auto& kind = kube::kindOf<api::capz::AzureMachine>(client.registry());
    std::string resourceVersion;
    while (!stop.stop_requested()) {
      kube::ListOptions options;
      options.timeoutSeconds = 3600;
      options.allowWatchBookmarks = true;
      options.resourceVersion = resourceVersion;
      (void)client.watch(
          kind, "default", options,
          [&](kube::WatchEvent&& event) {
            resourceVersion =
                event.resourceVersion.empty() ? resourceVersion : event.resourceVersion;
            if (event.type == kube::WatchEventType::Added ||
                event.type == kube::WatchEventType::Modified) {
              if (const auto* m =
                      event.object ? event.object->as<api::capz::AzureMachine>() : nullptr) {
                observe(*m);
              }
            }
            return true;
          },
          stop);
    }
  }

  void observe(const api::capz::AzureMachine& machine) {
    const SteadyTime now = core::systemClock().steadyNow();
    bool creating = false;
    for (const auto& c : machine.status.conditions) {
      creating = creating || c.reason == controllers::capz::azuremachine::kVMCreatingReason;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Seen& seen = seen_[machine.metadata.name];
    if (!seen.creating && (creating || machine.status.ready)) {
      seen.creating = true;
      ++counts_.creating;
      counts_.lastCreating = now;
      if (!creating) {
        ++counts_.readyWithoutCreatingSeen;
      }
    }
    if (!seen.ready && machine.status.ready) {
      seen.ready = true;
      ++counts_.ready;
      counts_.lastReady = now;
    }
    cv_.notify_all();
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Seen> seen_;  // GUARDED_BY(mu_)
  Counts counts_;                     // GUARDED_BY(mu_)
  std::jthread thread_;               // last: stops before the rest goes
};

}  // namespace nodewright::bench::capz
