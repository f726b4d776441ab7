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
    metrics_
        ->gauge("controller_runtime_max_concurrent_reconciles",
                "Maximum number of concurrent reconciles per controller.", {"controller"})
        .with({name_})
        .set(options_.workers);
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
  auto* active =
      metrics_ ? &metrics_
                      ->gauge("controller_runtime_active_workers",
                              "Number of currently used workers per controller.", {"controller"})
                      .with({name_})
               : nullptr;
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
  try {
    outcome = reconciler_.reconcile(Request::fromKey(key), context);
  } catch (const std::exception& e) {
    // Exceptions never cross the worker thread; they count as errors like any other.
    outcome = core::fail(core::Error::internal(std::string("reconciler threw: ") + e.what()));
  }
  const double seconds = std::chrono::duration<double>(clock_.steadyNow() - start).count();
  std::string result;
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
  if (metrics_) {
    metrics_
        ->counter("controller_runtime_reconcile_total",
                  "Total number of reconciliations per controller.", {"controller", "result"})
        .with({name_, result})
        .inc();
    if (result == "error") {
      metrics_
          ->counter("controller_runtime_reconcile_errors_total",
                    "Total number of reconciliation errors per controller.", {"controller"})
          .with({name_})
          .inc();
    }
    metrics_
        ->histogram("controller_runtime_reconcile_time_seconds",
                    "Length of time per reconciliation per controller.", {"controller"},
                    Registry::exponentialBuckets(0.001, 2, 16))
        .with({name_})
        .observe(seconds);
  }
}

}  // namespace nodewright::runtime
