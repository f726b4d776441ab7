#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>

#include "api/core/lease.h"
#include "core/clock.h"
#include "kube/client.h"

// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection with a
// LeaseLock: acquire when the lease is free or expired (by the time we observed it, not the
// holder's clock), renew every retryPeriod, and give up leadership when renewals fail for
// renewDeadline, which is shorter than leaseDuration, so a deposed leader has stopped before
// anyone else may acquire.
namespace nodewright::runtime {

class Registry;
class Gauge;

struct LeaderElectionConfig {
  std::string name;  // the Lease's name
  std::string ns;    // the Lease's namespace
  std::string identity;
  // Written to the Lease rounded up to whole seconds (leaseDurationSeconds); candidates wait
  // for the longer of that and their own leaseDuration.
  std::chrono::milliseconds leaseDuration{15000};
  std::chrono::milliseconds renewDeadline{10000};
  std::chrono::milliseconds retryPeriod{2000};
  // Release the lease on a clean stop so a successor need not wait for it to expire.
  bool releaseOnCancel = true;
  Registry* metrics = nullptr;  // leader_election_master_status{name}
};

struct LeaderCallbacks {
  // Called on the thread of run() once leadership is gained; `lost` is requested when it ends
  // (run's stop, or renewDeadline passed without a renewal). It may block until `lost` or return
  // at once; run() returns only after it has returned, and releases the lease only then.
  std::function<void(std::stop_token lost)> onStartedLeading;
  // Called once leadership ends (after the run's stop or a failed renewal); must return quickly.
  // Not called when run() ends without ever leading.
  std::function<void()> onStoppedLeading;
  // Called from the elector's threads whenever the observed holder changes; must return quickly.
  std::function<void(const std::string& identity)> onNewLeader;
};

// Thread-safe: isLeader() and observedLeader() may be called from any thread while run() runs
// on one. The client's request timeout should be below renewDeadline: a renewal stuck in a
// request cannot end leadership earlier than isLeader() does, but run() waits for it to return.
class LeaderElector {
 public:
  // REQUIRES: validate(config) succeeded (checked). client and clock must outlive the elector.
  LeaderElector(kube::Client& client, const core::Clock& clock, LeaderElectionConfig config,
                LeaderCallbacks callbacks);
  // Validates the timing rules (renewDeadline < leaseDuration, retryPeriod·1.2 < renewDeadline)
  // and that name, namespace and identity are set.
  static core::Status validate(const LeaderElectionConfig& config);

  // Blocks: acquires, leads until renewal fails or `stop`, then returns. Run it again to rejoin.
  // REQUIRES: not running already.
  void run(std::stop_token stop);
  // True only while the last successful renewal is younger than renewDeadline; work that must
  // never overlap with another leader checks this (a paused process wakes up deposed).
  bool isLeader() const;
  std::string observedLeader() const;

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // Blocks until the lease is ours (true) or `stop` is requested (false).
  bool acquire(std::stop_token stop);
  // Renews every retryPeriod until `lost` is requested or a renewal deadline passes.
  void renewLoop(std::stop_source& lost);
  // Requests `lost` once renewDeadline has passed since the last renewal, even while a renewal
  // request hangs.
  void watchdog(std::stop_source& lost);
  // One attempt: reads the lease (creating it when missing) and writes our record if it is free,
  // expired or ours. False when someone else holds it or the write failed.
  bool tryAcquireOrRenew();
  // Writes an empty holder with a 1 s duration, if we were the last holder we observed.
  void release();
  // Records what we read or wrote; notes the time when the record changed.
  void observe(const api::corev1::Lease& lease, SteadyTime at);
  void setLeading(bool leading);
  // Waits until `deadline` or `token` is requested; true when requested.
  bool waitUntil(SteadyTime deadline, const std::stop_token& token);
  std::chrono::milliseconds jittered(std::chrono::milliseconds period);

  // Fixed after construction.
  kube::Client& client_;
  const core::Clock& clock_;
  const LeaderElectionConfig config_;
  const LeaderCallbacks callbacks_;
  kube::Typed<api::corev1::Lease> leases_;
  Gauge* masterStatus_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // lastRenew_ moved, or a stop was requested
  std::atomic<bool> leading_{false};
  SteadyTime lastRenew_{};                      // GUARDED_BY(mu_)
  std::string observedLeader_;                  // GUARDED_BY(mu_)
  std::optional<api::corev1::Lease> observed_;  // GUARDED_BY(mu_): last read or written
  SteadyTime observedTime_{};                   // GUARDED_BY(mu_): when its record changed
  std::minstd_rand jitter_;                     // GUARDED_BY(mu_)
};

}  // namespace nodewright::runtime
