#include "runtime/leader_election.h"

#include <thread>

#include "core/check.h"
#include "core/log.h"
#include "runtime/metrics.h"

namespace nodewright::runtime {
namespace {

using api::corev1::Lease;
using api::corev1::LeaseSpec;

// client-go's JitterFactor: acquisition attempts wait retryPeriod·[1, 2.2).
constexpr double kJitterFactor = 1.2;

int32_t wholeSeconds(std::chrono::milliseconds d) {
  return static_cast<int32_t>(std::chrono::ceil<std::chrono::seconds>(d).count());
}

bool sameRecord(const LeaseSpec& a, const LeaseSpec& b) {
  return a.holderIdentity == b.holderIdentity && a.leaseDurationSeconds == b.leaseDurationSeconds &&
         a.acquireTime == b.acquireTime && a.renewTime == b.renewTime &&
         a.leaseTransitions == b.leaseTransitions;
}

}  // namespace

LeaderElector::LeaderElector(kube::Client& client, const core::Clock& clock,
                             LeaderElectionConfig config, LeaderCallbacks callbacks)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)),
      leases_(client_),
      jitter_(std::random_device{}()) {
  NW_CHECK(validate(config_).has_value());
  if (config_.metrics != nullptr) {
    // client-go's name and help (leaderelection/metrics.go).
    masterStatus_ = &config_.metrics
                         ->gauge("leader_election_master_status",
                                 "Gauge of if the reporting system is master of the relevant "
                                 "lease, 0 indicates backup, 1 indicates master. 'name' is the "
                                 "string used to identify the lease. Please make sure to group "
                                 "by name.",
                                 {"name"})
                         .with({config_.name});
    masterStatus_->set(0);
  }
}

core::Status LeaderElector::validate(const LeaderElectionConfig& config) {
  if (config.name.empty() || config.ns.empty()) {
    return core::fail(
        core::Error::invalid("leader election: the lease's name and namespace "
                             "are required"));
  }
  if (config.identity.empty()) {
    return core::fail(core::Error::invalid("leader election: identity is required"));
  }
  if (config.retryPeriod.count() <= 0 || config.renewDeadline.count() <= 0 ||
      config.leaseDuration.count() <= 0) {
    return core::fail(core::Error::invalid("leader election: durations must be positive"));
  }
  if (config.leaseDuration <= config.renewDeadline) {
    return core::fail(
        core::Error::invalid("leader election: leaseDuration must be greater than renewDeadline"));
  }
  if (config.renewDeadline.count() <= kJitterFactor * config.retryPeriod.count()) {
    return core::fail(core::Error::invalid(
        "leader election: renewDeadline must be greater than retryPeriod*1.2"));
  }
  return core::ok();
}

void LeaderElector::run(std::stop_token stop) {
  if (!acquire(stop)) {
    return;
  }
  core::logInfo("leader election: acquired lease",
                {{"lease", config_.ns + "/" + config_.name}, {"identity", config_.identity}});
  setLeading(true);
  std::stop_source lost;
  // Whoever ends leadership (our stop, the renewer, the watchdog) deposes us at that moment,
  // before the callbacks have wound down. Registered after setLeading(true), which a stop
  // requested already must not undo.
  std::stop_callback depose(lost.get_token(), [this] { setLeading(false); });
  std::stop_callback forward(stop, [&lost] { lost.request_stop(); });
  {
    std::jthread renewer([this, &lost] { renewLoop(lost); });
    std::jthread guard([this, &lost] { watchdog(lost); });
    if (callbacks_.onStartedLeading) {
      callbacks_.onStartedLeading(lost.get_token());
    }
    while (!waitUntil(clock_.steadyNow() + std::chrono::hours(1), lost.get_token())) {
    }
  }  // joins the renewer, whose request may still be in flight
  core::logInfo("leader election: stopped leading",
                {{"lease", config_.ns + "/" + config_.name}, {"identity", config_.identity}});
  // Only now: the leader's work has been told to stop (and onStartedLeading has returned), so a
  // successor taking the released lease does not overlap with it.
  if (config_.releaseOnCancel) {
    release();
  }
  if (callbacks_.onStoppedLeading) {
    callbacks_.onStoppedLeading();
  }
}

bool LeaderElector::isLeader() const {
  if (!leading_.load()) {
    return false;
  }
  std::lock_guard lock(mu_);
  return clock_.steadyNow() - lastRenew_ < config_.renewDeadline;
}

std::string LeaderElector::observedLeader() const {
  std::lock_guard lock(mu_);
  return observedLeader_;
}

bool LeaderElector::acquire(std::stop_token stop) {
  while (!stop.stop_requested()) {
    if (tryAcquireOrRenew()) {
      return true;
    }
    if (waitUntil(clock_.steadyNow() + jittered(config_.retryPeriod), stop)) {
      return false;
    }
  }
  return false;
}

void LeaderElector::renewLoop(std::stop_source& lost) {
  std::stop_token token = lost.get_token();
  while (!waitUntil(clock_.steadyNow() + config_.retryPeriod, token)) {
    // Checked before trying: a renewal after the deadline (a paused process) must not revive a
    // leadership that others may already consider expired.
    if (!isLeader()) {
      core::logWarn("leader election: failed to renew lease within the deadline",
                    {{"lease", config_.ns + "/" + config_.name}});
      lost.request_stop();
      return;
    }
    tryAcquireOrRenew();
  }
}

void LeaderElector::watchdog(std::stop_source& lost) {
  std::stop_token token = lost.get_token();
  std::stop_callback wake(token, [this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  std::unique_lock lock(mu_);
  while (!token.stop_requested()) {
    SteadyTime deadline = lastRenew_ + config_.renewDeadline;
    if (clock_.steadyNow() >= deadline) {
      lock.unlock();  // request_stop runs callbacks that take mu_
      core::logWarn("leader election: no renewal within the deadline",
                    {{"lease", config_.ns + "/" + config_.name}});
      lost.request_stop();
      return;
    }
    clock_.waitUntil(lock, cv_, deadline);
  }
}

bool LeaderElector::tryAcquireOrRenew() {
  const core::Time now(clock_.now());
  auto current = leases_.get(config_.ns, config_.name);
  if (!current) {
    if (!current.error().is(kube::Reason::NotFound)) {
      core::logDebug(
          "leader election: reading lease failed",
          {{"lease", config_.ns + "/" + config_.name}, {"error", current.error().describe()}});
      return false;
    }
    Lease lease;
    lease.apiVersion = leases_.kind().apiVersion();
    lease.kind = leases_.kind().kind;
    lease.metadata.name = config_.name;
    lease.metadata.namespace_ = config_.ns;
    lease.spec.holderIdentity = config_.identity;
    lease.spec.leaseDurationSeconds = wholeSeconds(config_.leaseDuration);
    lease.spec.acquireTime = now;
    lease.spec.renewTime = now;
    lease.spec.leaseTransitions = 0;
    const SteadyTime sent = clock_.steadyNow();
    auto created = leases_.create(lease);
    if (!created) {
      return false;  // AlreadyExists: another candidate created it first
    }
    observe(*created, clock_.steadyNow());
    std::lock_guard lock(mu_);
    lastRenew_ = sent;
    return true;
  }

  observe(*current, clock_.steadyNow());
  const LeaseSpec& old = current->spec;
  const bool ours = old.holderIdentity == config_.identity;
  if (!old.holderIdentity.empty() && !ours) {
    // The holder's claim counts from when we saw its record change, on our clock: clocks of
    // different machines are never compared.
    const auto claimed = std::max<std::chrono::milliseconds>(
        config_.leaseDuration, std::chrono::seconds(old.leaseDurationSeconds.value_or(0)));
    std::lock_guard lock(mu_);
    if (observedTime_ + claimed > clock_.steadyNow()) {
      return false;
    }
  }

  Lease next = *current;
  next.spec.holderIdentity = config_.identity;
  next.spec.leaseDurationSeconds = wholeSeconds(config_.leaseDuration);
  next.spec.renewTime = now;
  if (!ours || next.spec.acquireTime.isZero()) {
    next.spec.acquireTime = now;
  }
  next.spec.leaseTransitions = old.leaseTransitions.value_or(0) + (ours ? 0 : 1);
  // Leadership counts from before the write: others see it only after it lands, so our deadline
  // ends before their view of the lease expires.
  const SteadyTime sent = clock_.steadyNow();
  auto updated = leases_.update(next);  // carries the read resourceVersion: a conflict lost a race
  if (!updated) {
    core::logDebug(
        "leader election: writing lease failed",
        {{"lease", config_.ns + "/" + config_.name}, {"error", updated.error().describe()}});
    return false;
  }
  observe(*updated, clock_.steadyNow());
  std::lock_guard lock(mu_);
  lastRenew_ = sent;
  return true;
}

void LeaderElector::release() {
  Lease lease;
  {
    std::lock_guard lock(mu_);
    if (!observed_ || observed_->spec.holderIdentity != config_.identity) {
      return;
    }
    lease = *observed_;
  }
  const core::Time now(clock_.now());
  lease.spec.holderIdentity.clear();
  lease.spec.leaseDurationSeconds = 1;
  lease.spec.acquireTime = now;
  lease.spec.renewTime = now;
  auto updated = leases_.update(lease);
  if (!updated) {
    // A conflict means someone else has written it since; it is not ours to release.
    core::logWarn(
        "leader election: releasing lease failed",
        {{"lease", config_.ns + "/" + config_.name}, {"error", updated.error().describe()}});
    return;
  }
  observe(*updated, clock_.steadyNow());
}

void LeaderElector::observe(const Lease& lease, SteadyTime at) {
  std::string reported;
  {
    std::lock_guard lock(mu_);
    if (!observed_ || !sameRecord(observed_->spec, lease.spec)) {
      observedTime_ = at;
    }
    observed_ = lease;
    if (lease.spec.holderIdentity == observedLeader_) {
      return;
    }
    observedLeader_ = lease.spec.holderIdentity;
    reported = observedLeader_;
  }
  if (!reported.empty() && callbacks_.onNewLeader) {
    callbacks_.onNewLeader(reported);
  }
}

void LeaderElector::setLeading(bool leading) {
  leading_.store(leading);
  if (masterStatus_ != nullptr) {
    masterStatus_->set(leading ? 1 : 0);
  }
}

bool LeaderElector::waitUntil(SteadyTime deadline, const std::stop_token& token) {
  // Registered before taking mu_: a callback that runs at once takes mu_ itself.
  std::stop_callback wake(token, [this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  std::unique_lock lock(mu_);
  while (!token.stop_requested() && clock_.steadyNow() < deadline) {
    clock_.waitUntil(lock, cv_, deadline);
  }
  return token.stop_requested();
}

std::chrono::milliseconds LeaderElector::jittered(std::chrono::milliseconds period) {
  std::lock_guard lock(mu_);
  std::uniform_real_distribution<double> factor(0, kJitterFactor);
  return period + std::chrono::milliseconds(static_cast<int64_t>(factor(jitter_) * period.count()));
}

}  // namespace nodewright::runtime
