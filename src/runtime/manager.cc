#include "runtime/manager.h"

#include <condition_variable>
#include <mutex>

#include "core/log.h"

namespace nodewright::runtime {

Manager::Manager(kube::Client& client, ManagerOptions options)
    : client_(client),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : core::systemClock()),
      metrics_(options_.metrics ? *options_.metrics : defaultRegistry()) {
  if (!options_.informerDefaults.clock) {
    options_.informerDefaults.clock = &clock_;
  }
}

Manager::~Manager() {
  stopControllers();
  stopInformers();
}

kube::Informer& Manager::informer(const api::KindInfo& kind) {
  std::lock_guard lock(mu_);
  auto key = kind.apiVersion() + "/" + kind.kind;
  auto& slot = informers_[key];
  if (!slot) {
    slot = std::make_unique<kube::Informer>(client_, kind, options_.informerDefaults);
  }
  return *slot;
}

Controller& Manager::addController(const std::string& name, Reconciler& reconciler,
                                   ControllerOptions options) {
  std::lock_guard lock(mu_);
  if (options_.leaderElection && !options.gate) {
    options.gate = [this] { return isLeader(); };
  }
  controllers_.push_back(
      std::make_unique<Controller>(name, reconciler, clock_, std::move(options), &metrics_));
  return *controllers_.back();
}

EventRecorder& Manager::events() {
  std::lock_guard lock(mu_);
  if (!events_) {
    EventRecorderOptions options;
    options.component = options_.component;
    events_ = std::make_unique<EventRecorder>(client_, clock_, options);
  }
  return *events_;
}

bool Manager::cachesSynced() const {
  return synced_.load();
}

bool Manager::isLeader() const {
  if (!options_.leaderElection) {
    return true;
  }
  return leading_.load() && elector_ && elector_->isLeader();
}

std::optional<uint16_t> Manager::metricsPort() const {
  if (!metricsEndpoint_) {
    return std::nullopt;
  }
  return metricsEndpoint_->port();
}

std::optional<uint16_t> Manager::healthPort() const {
  if (!healthEndpoint_) {
    return std::nullopt;
  }
  return healthEndpoint_->port();
}

core::Status Manager::startEndpoints() {
  auto open = [this](EndpointsOptions options, std::unique_ptr<Endpoints>& slot) -> core::Status {
    if (!options.registry) {
      options.registry = &metrics_;
    }
    auto endpoints = Endpoints::start(options);
    if (!endpoints) {
      return core::fail(endpoints.error());
    }
    slot = std::move(*endpoints);
    if (options.serveHealth) {
      slot->addReadyCheck("informers-synced", [this]() -> core::Status {
        if (synced_) {
          return core::ok();
        }
        return core::fail(core::Error::internal("caches have not synced yet"));
      });
    }
    return core::ok();
  };
  if (options_.metricsEndpoint) {
    if (auto s = open(*options_.metricsEndpoint, metricsEndpoint_); !s) {
      return s;
    }
  }
  if (options_.healthEndpoint) {
    if (auto s = open(*options_.healthEndpoint, healthEndpoint_); !s) {
      return s;
    }
  }
  return core::ok();
}

void Manager::runControllers(std::stop_token stop) {
  std::vector<Controller*> controllers;
  {
    std::lock_guard lock(mu_);
    for (auto& c : controllers_) {
      controllers.push_back(c.get());
    }
  }
  for (auto* c : controllers) {
    c->start(stop);
  }
  core::logInfo("manager: controllers started", {{"count", controllers.size()}});
}

void Manager::stopControllers() {
  std::vector<Controller*> controllers;
  {
    std::lock_guard lock(mu_);
    for (auto& c : controllers_) {
      controllers.push_back(c.get());
    }
  }
  for (auto* c : controllers) {
    c->stop();
  }
}

core::Status Manager::run(std::stop_token stop) {
  core::Status ran = runUntilStopped(stop);
  // Event handlers map into reconcilers that may go once run() returns: no informer outlives it.
  stopInformers();
  return ran;
}

void Manager::stopInformers() {
  std::vector<kube::Informer*> informers;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, informer] : informers_) {
      informers.push_back(informer.get());
    }
  }
  for (auto* informer : informers) {
    informer->stop();
  }
}

core::Status Manager::runUntilStopped(std::stop_token stop) {
  if (options_.leaderElection) {
    if (auto valid = LeaderElector::validate(*options_.leaderElection); !valid) {
      return valid;
    }
  }
  if (auto s = startEndpoints(); !s) {
    return s;
  }
  std::vector<kube::Informer*> informers;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, informer] : informers_) {
      informers.push_back(informer.get());
    }
  }
  for (auto* informer : informers) {
    informer->start();
  }
  for (auto* informer : informers) {
    if (!informer->waitForSync(options_.cacheSyncTimeout, stop)) {
      if (stop.stop_requested()) {
        return core::ok();
      }
      return core::fail(core::Error::internal("timed out waiting for the " +
                                              informer->kind().plural + " cache to sync"));
    }
  }
  synced_ = true;
  core::logInfo("manager: caches synced", {{"count", informers.size()}});

  if (!options_.leaderElection) {
    runControllers(stop);
    // The stop-aware wait: a stop requested before it starts returns at once (a stop callback
    // registered under the lock would run inline and deadlock on it).
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, stop, [] { return false; });
    stopControllers();
    return core::ok();
  }

  auto config = *options_.leaderElection;
  if (!config.metrics) {
    config.metrics = &metrics_;
  }
  bool lost = false;
  LeaderCallbacks callbacks;
  // Leads until the term ends, then waits for reconciles in flight: the elector releases the
  // lease only after this returns, so a successor never overlaps with our workers on a clean stop.
  callbacks.onStartedLeading = [this](std::stop_token term) {
    leading_ = true;
    core::logInfo("manager: became the leader");
    runControllers(term);
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, term, [] { return false; });
    leading_ = false;
    stopControllers();
  };
  callbacks.onStoppedLeading = [this, &lost, &stop] {
    leading_ = false;
    if (!stop.stop_requested()) {
      lost = true;
      core::logError("manager: leader election lost");
    }
  };
  callbacks.onNewLeader = [](const std::string& identity) {
    core::logInfo("manager: new leader", {{"identity", identity}});
  };
  // A renewal must never outlive the renew deadline: the elector gets a client of its own whose
  // requests time out by then (client-go bounds each renewal the same way).
  auto electionConfig = client_.config();
  electionConfig.timeout = std::min(electionConfig.timeout, config.renewDeadline);
  kube::ClientOptions electionOptions;
  electionOptions.registry = &client_.registry();
  auto electionClient = kube::Client::create(electionConfig, electionOptions);
  if (!electionClient) {
    return core::fail(electionClient.error());
  }
  electionClient_ = std::move(*electionClient);
  elector_ = std::make_unique<LeaderElector>(*electionClient_, clock_, config, callbacks);
  elector_->run(stop);
  leading_ = false;
  stopControllers();
  if (lost) {
    return core::fail(core::Error::internal("leader election lost"));
  }
  return core::ok();
}

}  // namespace nodewright::runtime
