#include "runtime/controller.h"

#include <fmt/format.h>

#include "core/log.h"
#include "runtime/logging.h"
#include "runtime/metrics.h"

namespace nodewright::runtime {

Request Request::fromKey(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) {
    return {"", key};
  }
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::chrono::nanoseconds Context::remaining() const {
  auto left = deadline_ - clock_.steadyNow();
  return left.count() > 0 ? std::chrono::duration_cast<std::chrono::nanoseconds>(left)
                          : std::chrono::nanoseconds(0);
}

bool Context::cancelled() const {
  return stop_.stop_requested() || clock_.steadyNow() >= deadline_;
}

std::optional<Request> controllerOwner(const api::Object& object, const std::string& ownerKind) {
  for (const auto& ref : object.metadata().ownerReferences) {
    if (ref.controller.value_or(false) && ref.kind == ownerKind) {
      return Request{object.metadata().namespace_, ref.name};
    }
  }
  return std::nullopt;
}

namespace {

// controller-runtime's reconcile_time_seconds buckets: 5 ms to 60 s.
std::vector<double> reconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
}

QueueOptions namedQueue(QueueOptions options, const std::string& name, Registry* metrics) {
  if (options.name.empty()) {
    options.name = name;
  }
  if (!options.metrics) {
    options.metrics = metrics;
  }
  return options;
}

}  // namespace

Controller::Controller(std::string name, Reconciler& reconciler, const core::Clock& clock,
                       ControllerOptions options, Registry* metrics)
    : name_(std::move(name)),
      reconciler_(reconciler),
      clock_(clock),
      options_(std::move(options)),
      metrics_(metrics),
      queue_(clock, namedQueue(options_.queue, name_, metrics)),
      logger_(namedLogger("controller." + name_)) {
  if (metrics_) {
    Registry& r = *metrics_;
    r.gauge("controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller", {"controller"})
        .with({name_})
        .set(options_.workers);
    families_.total =
        &r.counter("controller_runtime_reconcile_total",
                   "Total number of reconciliations per controller", {"controller", "result"});
    families_.errors =
        &r.counter("controller_runtime_reconcile_errors_total",
                   "Total number of reconciliation errors per controller", {"controller"});
    // Registered for parity: this runtime has no terminal errors (every error backs off), so it
    // stays at zero.
    families_.terminalErrors =
        &r.counter("controller_runtime_terminal_reconcile_errors_total",
                   "Total number of terminal reconciliation errors per controller", {"controller"});
    families_.panics =
        &r.counter("controller_runtime_reconcile_panics_total",
                   "Total number of reconciliation panics per controller", {"controller"});
    families_.timeouts =
        &r.counter("controller_runtime_reconcile_timeouts_total",
                   "Total number of reconciliation timeouts per controller", {"controller"});
    families_.time = &r.histogram("controller_runtime_reconcile_time_seconds",
                                  "Length of time per reconciliation per controller",
                                  {"controller"}, reconcileTimeBuckets());
    families_.activeWorkers =
        &r.gauge("controller_runtime_active_workers",
                 "Number of currently used workers per controller", {"controller"});
    // Each controller's series exist from the start, at zero, as controller-runtime
    // initialises them.
    for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
      families_.total->with({name_, result});
    }
    for (auto* family :
         {families_.errors, families_.terminalErrors, families_.panics, families_.timeouts}) {
      family->with({name_});
    }
    families_.activeWorkers->with({name_});
  }
}

Controller::~Controller() {
  stop();
}

void Controller::enqueueAll(const std::vector<Request>& requests) {
  for (const auto& r : requests) {
    queue_.add(r.key());
  }
}

void Controller::watchFor(kube::Informer& informer) {
  informer.addHandler(kube::EventHandler{
      [this](const api::Object& o) { queue_.add(kube::keyOf(o)); },
      [this](const api::Object&, const api::Object& o) { queue_.add(kube::keyOf(o)); },
      [this](const api::Object& o) { queue_.add(kube::keyOf(o)); },
  });
}

void Controller::watchOwned(kube::Informer& informer, const std::string& ownerKind) {
  auto owner = [this, ownerKind](const api::Object& o) {
    if (auto r = controllerOwner(o, ownerKind)) {
      queue_.add(r->key());
    }
  };
  informer.addHandler(kube::EventHandler{
      owner,
      // An owner change moves the object: both the old and the new owner look again.
      [owner](const api::Object& before, const api::Object& after) {
        owner(before);
        owner(after);
      },
      owner,
  });
}

void Controller::watchMapped(kube::Informer& informer, MapFunc map) {
  auto enqueue = [this, map](const api::Object& o) { enqueueAll(map(o)); };
  informer.addHandler(kube::EventHandler{
      enqueue,
      [enqueue](const api::Object& before, const api::Object& after) {
        enqueue(before);
        enqueue(after);
      },
      enqueue,
  });
}

void Controller::start(std::stop_token stop) {
  if (!workers_.empty()) {
    return;
  }
  for (int i = 0; i < std::max(options_.workers, 1); ++i) {
    workers_.emplace_back([this, stop](std::stop_token own) {
      std::stop_callback onProcessStop(stop, [this] { queue_.shutdown(); });
      std::stop_callback onOwnStop(own, [this] { queue_.shutdown(); });
      work(stop);
    });
  }
}

void Controller::stop() {
  queue_.shutdown();
  for (auto& w : workers_) {
    if (w.joinable()) {
      w.join();
    }
  }
  workers_.clear();
}

void Controller::work(std::stop_token stop) {
  Gauge* active = families_.activeWorkers ? &families_.activeWorkers->with({name_}) : nullptr;
  while (auto key = queue_.get()) {
    if (active) {
      active->add(1);
    }
    processOne(*key, stop);
    if (active) {
      active->add(-1);
    }
    queue_.done(*key);
  }
}

void Controller::processOne(const std::string& key, std::stop_token stop) {
  LogScope scope(name_, key);
  if (options_.gate && !options_.gate()) {
    core::logDebug(*logger_, "not reconciling: gate closed (not the leader)");
    queue_.addAfter(key, std::chrono::seconds(1));
    return;
  }
  auto start = clock_.steadyNow();
  Context context(clock_, start + options_.reconcileTimeout, stop, logger_, key, options_.gate);
  Outcome outcome;
  bool threw = false;
  try {
    outcome = reconciler_.reconcile(Request::fromKey(key), context);
  } catch (const std::exception& e) {
    // Exceptions never cross the worker thread; they count as errors like any other, and as
    // controller-runtime's recovered panics.
    threw = true;
    outcome = core::fail(core::Error::internal(std::string("reconciler threw: ") + e.what()));
  }
  const double seconds = std::chrono::duration<double>(clock_.steadyNow() - start).count();
  std::string result;
  bool timedOut = false;
  if (!outcome) {
    result = "error";
    if (stop.stop_requested()) {
      core::logDebug(*logger_, "reconcile interrupted by shutdown", {{"error", outcome.error()}});
    } else {
      core::logError(*logger_, "reconcile failed", {{"error", outcome.error()}});
    }
    queue_.addRateLimited(key);
  } else if (context.cancelled() && !stop.stop_requested()) {
    result = "error";
    timedOut = true;
    core::logWarn(*logger_, "reconcile exceeded its deadline",
                  {{"deadline", options_.reconcileTimeout}});
    queue_.addRateLimited(key);
  } else if (outcome->requeueAfter.count() > 0) {
    result = "requeue_after";
    core::logDebug(*logger_, outcome->inProgress ? "in progress, again later" : "requeue later",
                   {{"after", outcome->requeueAfter}});
    queue_.forget(key);
    queue_.addAfter(key, outcome->requeueAfter);
  } else if (outcome->requeue) {
    result = "requeue";
    core::logDebug(*logger_, "requeue");
    queue_.addRateLimited(key);
  } else {
    result = "success";
    queue_.forget(key);
  }
  if (families_.total) {
    families_.total->with({name_, result}).inc();
    if (result == "error") {
      families_.errors->with({name_}).inc();
    }
    if (threw) {
      families_.panics->with({name_}).inc();
    }
    if (timedOut) {
      families_.timeouts->with({name_}).inc();
    }
    families_.time->with({name_}).observe(seconds);
  }
}

}  // namespace nodewright::runtime
