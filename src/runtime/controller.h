#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>

#include "kube/informer.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"
#include "runtime/workqueue.h"

// One controller: watches feed keys into a de-duplicating, rate-limited queue; N workers take
// keys and call the reconciler with a deadline. A key is never reconciled by two workers at once.
namespace nodewright::runtime {

class Registry;

struct ControllerOptions {
  int workers = 1;
  // A reconcile past its deadline is cancelled (Context::cancelled()) and its key requeued.
  std::chrono::milliseconds reconcileTimeout{std::chrono::minutes(3)};
  // Per-item backoff and the overall token bucket of the queue.
  QueueOptions queue;
  // Checked before every reconcile; false puts the key back untouched. The manager fences
  // controllers with the leader elector's isLeader(), so a replica paused past its renew
  // deadline starts no reconcile once it wakes; a reconcile in flight asks Context::leading()
  // between its read and its write.
  std::function<bool()> gate;
};

// Maps an object of a watched kind to the requests it should trigger.
using MapFunc = std::function<std::vector<Request>(const api::Object& object)>;

class Controller {
 public:
  Controller(std::string name, Reconciler& reconciler, const core::Clock& clock,
             ControllerOptions options, Registry* metrics);
  ~Controller();

  const std::string& name() const { return name_; }

  // The reconciled kind: each object enqueues its own key.
  void watchFor(kube::Informer& informer);
  // Objects whose controller owner reference is of kind `ownerKind` enqueue the owner's key.
  void watchOwned(kube::Informer& informer, const std::string& ownerKind);
  // Anything else: `map` decides which keys an object enqueues.
  void watchMapped(kube::Informer& informer, MapFunc map);

  // Starts the workers; they stop when `stop` is requested or stop() is called.
  void start(std::stop_token stop);
  // Shuts the queue down and joins the workers (waits for reconciles in flight).
  void stop();

  WorkQueue& queue() { return queue_; }
  void enqueue(const Request& request) { queue_.add(request.key()); }

 private:
  void work(std::stop_token stop);
  void processOne(const std::string& key, std::stop_token stop);
  void enqueueAll(const std::vector<Request>& requests);

  std::string name_;
  Reconciler& reconciler_;
  const core::Clock& clock_;
  ControllerOptions options_;
  Registry* metrics_;
  // controller-runtime's per-controller families (pkg/internal/controller/metrics), registered
  // with the controller so /metrics lists them before its first reconcile; null without a
  // registry.
  struct Families {
    Family<Counter>* total = nullptr;
    Family<Counter>* errors = nullptr;
    Family<Counter>* terminalErrors = nullptr;
    Family<Counter>* panics = nullptr;
    Family<Counter>* timeouts = nullptr;
    Family<Histogram>* time = nullptr;
    Family<Gauge>* activeWorkers = nullptr;
  };
  Families families_;
  WorkQueue queue_;
  std::shared_ptr<spdlog::logger> logger_;
  std::vector<std::jthread> workers_;
};

// Owner key helper for watchOwned: the controller ownerReference of kind `ownerKind`, if any.
std::optional<Request> controllerOwner(const api::Object& object, const std::string& ownerKind);

}  // namespace nodewright::runtime
