#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "lro/adaptive_timeout.h"
#include "lro/metrics.h"
#include "lro/operation.h"
#include "lro/outcome.h"
#include "lro/records.h"
#include "lro/timeouts.h"
#include "runtime/metrics.h"

// The futures engine (seed 004): creates, updates and deletes cloud resources without holding a
// reconcile worker for the length of a long-running operation. An operation is begun and polled
// for a short window; if it is not done by then, its resume token is parked as an
// OperationRecord (records.h), which the caller stores with the object (CAPZ: as a Future in its
// status), and the call returns NotDone with a requeue time. The next call (possibly in another
// process) polls the parked operation instead of sending the request again.
//
// Invariants:
//   - a record exists exactly while its operation may still be running; it is removed when the
//     operation ends, succeeded or failed, and when it turns out to be stale;
//   - a stale record (the operation is unknown or canceled) never blocks: it is dropped and the
//     resource re-evaluated in the same call, at most once; a failed operation's record is
//     removed and the failure reported (a failed DELETE is sent again by the next call);
//   - a record whose poll is refused (a 4xx other than 404/409/429: the status monitor will not
//     answer for it) is dropped and the refusal reported, as CAPZ drops a future whose resumed
//     poller errs: the next call begins the request afresh instead of polling it forever;
//   - a PUT or PATCH first waits for a parked DELETE of the resource to end;
//   - no call waits past its deadline, and "not done" is never an error (debug log + metric).
//
// Thread-safe: one engine serves every worker; each call works on its caller's records.
namespace nodewright::lro {

struct EngineOptions {
  Timeouts timeouts;
  AdaptiveOptions adaptive;
  // Between polls within a window when the cloud sends no Retry-After.
  std::chrono::milliseconds pollInterval{500};
};

class Engine {
 public:
  // `operations` (thread-safe), `clock` and `metrics` (may be null) must outlive the engine.
  Engine(Operations& operations, const core::Clock& clock, EngineOptions options = {},
         runtime::Registry* metrics = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // PUT: waits for a parked DELETE of the resource to end (NotDone meanwhile), then resumes the
  // parked PUT of the resource if there is one; otherwise GETs the resource,
  // asks the spec for parameters (none: up to date, Done with the existing resource), begins
  // the PUT and polls it for the call window. `deadline` bounds the whole call (a service's
  // deadline; see serviceDeadline()).
  Outcome createOrUpdate(const ResourceSpec& spec, OperationRecords& records,
                         const Deadline& deadline = Deadline::none());
  // The same with PATCH and the parked PATCH.
  Outcome patch(const ResourceSpec& spec, OperationRecords& records,
                const Deadline& deadline = Deadline::none());
  // DELETE: resumes the parked DELETE or begins a DELETE; NotFound is Done. Drops the parked PUT
  // and PATCH of the resource, whose operations no longer matter.
  Outcome remove(const ResourceSpec& spec, OperationRecords& records,
                 const Deadline& deadline = Deadline::none());

  Deadline reconcileDeadline() const { return lro::reconcileDeadline(clock_, options_.timeouts); }
  Deadline serviceDeadline(const Deadline& reconcile) const {
    return lro::serviceDeadline(clock_, options_.timeouts, reconcile);
  }

  // Calls in progress stop waiting and park their operations; later calls never wait. For
  // shutdown: no worker stays blocked on a poll window.
  void stop();

  const AdaptiveTimeouts& adaptive() const { return adaptive_; }
  const EngineOptions& options() const { return options_; }

 private:
  struct Call;
  Outcome run(Verb verb, const ResourceSpec& spec, OperationRecords& records,
              const Deadline& deadline);
  // One call per resource at a time in this process: two reconciles that both find a shared
  // resource (a deployment's availability set) missing would otherwise both send its PUT.
  // False when stop() was called or `deadline` passed first.
  bool holdResource(const std::string& key, const Deadline& deadline);
  void releaseResource(const std::string& key);
  // nullopt: the record was stale and has been dropped.
  std::optional<Outcome> resume(Call& call, const std::string& token);
  // PUT/PATCH: resumes the resource's parked DELETE, if any; an outcome while the delete runs
  // (or cannot be polled), nullopt once it has ended and its record is gone.
  std::optional<Outcome> awaitDelete(Call& call);
  Outcome evaluate(Call& call);
  Outcome await(Call& call, OpState state, SteadyTime began, AdaptiveTimeouts::Window window);
  Outcome finish(Call& call, const OpState& state);
  // Records the operation (`fresh`: begun in this call, for the metrics).
  void store(Call& call, const OpState& state, bool fresh);
  Outcome park(Call& call, const OpState& state, bool fresh);
  // Parks an operation begun in this call; a censored sample when the window is over.
  Outcome parkFresh(Call& call, const OpState& state, SteadyTime began, SteadyTime windowEnd);
  Outcome reevaluateOnce(Call& call, std::string_view why);
  void dropStale(Call& call, std::string_view why);
  // A poll refused (refusesPoll()): the record goes and the refusal is reported as an Error, so
  // the caller backs off and its next call begins the request afresh.
  Outcome dropRefused(Call& call, const CallError& error);
  Outcome callFailed(Call& call, const CallError& error, std::string_view doing);
  Outcome notDone(Call& call, std::optional<std::chrono::milliseconds> retryAfter, std::string code,
                  std::string message);
  Outcome deadlineExceeded(Call& call);
  std::chrono::milliseconds requestTimeout(const Call& call) const;
  // False when stop() was called.
  bool waitUntil(SteadyTime until);

  // Fixed after construction.
  Operations& operations_;
  const core::Clock& clock_;
  const EngineOptions options_;
  EngineMetrics metrics_;
  AdaptiveTimeouts adaptive_;  // thread-safe itself

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;       // GUARDED_BY(mu_)
  std::set<std::string> held_;  // GUARDED_BY(mu_): resource ids with a call in progress
};

}  // namespace nodewright::lro
