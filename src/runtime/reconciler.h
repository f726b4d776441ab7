#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include <spdlog/logger.h>

#include "core/clock.h"
#include "core/error.h"

// What a controller implements: bring the world closer to one object's desired state.
namespace nodewright::runtime {

// The object to reconcile, by key.
struct Request {
  std::string ns;  // empty for cluster-scoped kinds
  std::string name;

  // "ns/name" or "name", the work-queue key.
  std::string key() const { return ns.empty() ? name : ns + "/" + name; }
  static Request fromKey(const std::string& key);
  bool operator==(const Request&) const = default;
};

// A successful reconcile: done, or look again later. `inProgress` marks work that is waiting on
// something slow (a cloud operation): it is logged at debug level, never as an error.
struct Result {
  bool requeue = false;  // again soon, with the queue's backoff
  std::chrono::nanoseconds requeueAfter{0};
  bool inProgress = false;

  static Result done() { return {}; }
  static Result after(std::chrono::nanoseconds delay) { return {false, delay, false}; }
  static Result waiting(std::chrono::nanoseconds delay) { return {false, delay, true}; }
  static Result again() { return {true, {}, false}; }
};

using Outcome = core::Result<Result>;

// What a reconcile may consult: its deadline, the process's stop signal, the clock and a logger
// that names the controller and the object.
class Context {
 public:
  Context(const core::Clock& clock, std::chrono::steady_clock::time_point deadline,
          std::stop_token stop, std::shared_ptr<spdlog::logger> logger, std::string key,
          std::function<bool()> leading = {})
      : clock_(clock),
        deadline_(deadline),
        stop_(std::move(stop)),
        logger_(std::move(logger)),
        key_(std::move(key)),
        leading_(std::move(leading)) {}

  const core::Clock& clock() const { return clock_; }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }
  // Time left before the deadline (never negative).
  std::chrono::nanoseconds remaining() const;
  // The deadline passed or the process is stopping: finish up and return.
  bool cancelled() const;
  std::stop_token stopToken() const { return stop_; }
  spdlog::logger& log() const { return *logger_; }
  // The object key, for log lines ("object" field).
  const std::string& key() const { return key_; }
  // Whether this replica still leads (always true without leader election). The gate is checked
  // before a reconcile starts, but a replica paused after that (SIGSTOP, a stall) may wake up
  // deposed: a reconcile that reads, then writes with the read resourceVersion, asks again
  // between the two. If it still leads after its read, no successor wrote before that read, so a
  // successor's later write makes this one conflict.
  bool leading() const { return !leading_ || leading_(); }

 private:
  const core::Clock& clock_;
  std::chrono::steady_clock::time_point deadline_;
  std::stop_token stop_;
  std::shared_ptr<spdlog::logger> logger_;
  std::string key_;
  std::function<bool()> leading_;
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  virtual Outcome reconcile(const Request& request, Context& context) = 0;
};

}  // namespace nodewright::runtime
