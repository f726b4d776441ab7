#include "lro/engine.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/log.h"
#include "lro/engine_call.h"

namespace nodewright::lro {

using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

// A Retry-After of 0 must not make a window spin.
constexpr milliseconds kMinPollInterval{50};
// The longest single wait for another call on the same resource to end.
constexpr milliseconds kMaxHoldWait{1000};

microseconds since(SteadyTime from, SteadyTime to) {
  return std::chrono::duration_cast<microseconds>(to - from);
}

}  // namespace

Engine::Engine(Operations& operations, const core::Clock& clock, EngineOptions options,
               runtime::Registry* metrics)
    : operations_(operations),
      clock_(clock),
      options_(std::move(options)),
      metrics_(metrics),
      adaptive_(options_.adaptive, options_.timeouts.call, metrics) {}

Engine::~Engine() = default;

Outcome Engine::createOrUpdate(const ResourceSpec& spec, OperationRecords& records,
                               const Deadline& deadline) {
  return run(Verb::Put, spec, records, deadline);
}

Outcome Engine::patch(const ResourceSpec& spec, OperationRecords& records,
                      const Deadline& deadline) {
  return run(Verb::Patch, spec, records, deadline);
}

Outcome Engine::remove(const ResourceSpec& spec, OperationRecords& records,
                       const Deadline& deadline) {
  return run(Verb::Delete, spec, records, deadline);
}

void Engine::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  cv_.notify_all();
}

Outcome Engine::run(Verb verb, const ResourceSpec& spec, OperationRecords& records,
                    const Deadline& deadline) {
  Call call{verb, spec, spec.resource(), records, deadline, false};
  if (verb == Verb::Delete) {
    // A create or update of a resource being deleted will never be resumed; left in place its
    // future would sit in the status for good.
    for (Verb superseded : {Verb::Put, Verb::Patch}) {
      if (removeRecord(records, call.key(superseded))) {
        metrics_.dropped(call.ref.serviceName, superseded, "superseded");
      }
    }
  }
  if (verb != Verb::Delete) {
    if (std::optional<Outcome> waiting = awaitDelete(call)) {
      return std::move(*waiting);
    }
  }
  if (const OperationRecord* parked = findRecord(records, call.key())) {
    std::string token = parked->resumeToken;  // `parked` dies with the next change to `records`
    if (std::optional<Outcome> outcome = resume(call, token)) {
      return std::move(*outcome);
    }
  }
  std::string key = call.ref.id;
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!holdResource(key, call.deadline)) {
    return notDone(call, std::nullopt, "", call.what() + ": another reconcile is working on it");
  }
  struct Release {
    Engine& engine;
    const std::string& key;
    ~Release() { engine.releaseResource(key); }
  } release{*this, key};
  return evaluate(call);
}

bool Engine::holdResource(const std::string& key, const Deadline& deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  while (held_.count(key) != 0) {
    if (stopping_ || deadline.expired(clock_)) {
      return false;
    }
    // In steps: a deadline of none() is too far for a timed wait.
    clock_.waitUntil(lock, cv_, std::min(deadline.time(), clock_.steadyNow() + kMaxHoldWait));
  }
  held_.insert(key);
  return true;
}

void Engine::releaseResource(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  held_.erase(key);
  cv_.notify_all();
}

std::optional<Outcome> Engine::awaitDelete(Call& call) {
  const OperationRecord* parked = findRecord(call.records, call.key(Verb::Delete));
  if (parked == nullptr) {
    return std::nullopt;
  }
  // A PUT now would meet the running delete; and the DELETE future, left in place, would be
  // resumed by a later remove() and report the resource created meanwhile as deleted.
  std::string token = parked->resumeToken;
  Call deleting{Verb::Delete, call.spec, call.ref, call.records, call.deadline, false};
  std::optional<Outcome> deleted = resume(deleting, token);
  if (!deleted || !deleted->transient()) {
    // Gone, failed or stale: its future has been removed and the resource is evaluated afresh.
    return std::nullopt;
  }
  if (deleted->notDone()) {
    deleted->message = call.what() + ": a delete of the resource is in progress";
  }
  return deleted;
}

std::optional<Outcome> Engine::resume(Call& call, const std::string& token) {
  if (call.deadline.expired(clock_)) {
    return deadlineExceeded(call);
  }
  metrics_.resumed(call.ref.serviceName, call.verb);
  CallResult<OpState> polled = operations_.poll(token, requestTimeout(call));
  if (!polled) {
    const CallError& e = polled.error();
    if (e.is(CallError::Kind::NotFound) || e.is(CallError::Kind::BadToken)) {
      dropStale(call, e.is(CallError::Kind::NotFound) ? "operation unknown" : "token unreadable");
      return std::nullopt;
    }
    if (refusesPoll(e)) {
      return dropRefused(call, e);
    }
    // Throttled, busy or no answer: the operation may well be running; keep its record and look
    // again.
    return callFailed(call, e, "polling");
  }
  OpState& state = *polled;
  if (!state.done()) {
    if (state.resumeToken.empty()) {
      state.resumeToken = token;
    }
    // A parked operation has outlived its window once: polling it for another one would hold
    // the worker for what is most likely a long operation.
    return park(call, state, false);
  }
  if (state.status == OpStatus::Canceled) {
    dropStale(call, "operation canceled");
    return std::nullopt;
  }
  // A failed delete ends here (DeletionFailed, with the cloud's reason); its future goes, so the
  // next call sends a new DELETE rather than showing "Deleting" for good.
  return finish(call, state);
}

Outcome Engine::evaluate(Call& call) {
  if (call.deadline.expired(clock_)) {
    return deadlineExceeded(call);
  }
  api::Json parameters;
  if (call.verb != Verb::Delete) {
    api::Json existing;
    CallResult<api::Json> got = operations_.get(call.ref, requestTimeout(call));
    if (got) {
      existing = std::move(*got);
    } else if (!got.error().is(CallError::Kind::NotFound)) {
      return callFailed(call, got.error(), "reading the resource");
    }
    core::Result<std::optional<api::Json>> wanted = call.spec.parameters(existing);
    if (!wanted) {
      Outcome o;
      o.kind = Outcome::Kind::Failed;
      o.errorCode = core::codeName(wanted.error().code());
      o.message = call.what() + ": computing parameters: " + wanted.error().message();
      return o;
    }
    if (!*wanted) {
      if (std::optional<std::string> busy = operations_.operationInProgress(existing)) {
        // Created (or changed) by a call whose future was never stored, most likely by a process
        // that died: it is not there until its operation ends, and the next look finds it done.
        return notDone(call, std::nullopt, "", call.what() + " is " + *busy);
      }
      core::logDebug("lro: resource up to date",
                     {{"resource", describeResource(call.ref)}, {"service", call.ref.serviceName}});
      Outcome o;
      o.kind = Outcome::Kind::Done;
      o.result = std::move(existing);
      return o;
    }
    parameters = std::move(**wanted);
    if (call.deadline.expired(clock_)) {
      return deadlineExceeded(call);
    }
  }
  AdaptiveTimeouts::Window window = adaptive_.begin(call.ref.serviceName, call.verb);
  SteadyTime began = clock_.steadyNow();
  CallResult<OpState> begun =
      operations_.begin(call.verb, call.ref, parameters, requestTimeout(call));
  if (!begun) {
    if (call.verb == Verb::Delete && begun.error().is(CallError::Kind::NotFound)) {
      Outcome o;
      o.kind = Outcome::Kind::Done;
      return o;
    }
    return callFailed(call, begun.error(), "beginning");
  }
  return await(call, std::move(*begun), began, window);
}

Outcome Engine::await(Call& call, OpState state, SteadyTime began,
                      AdaptiveTimeouts::Window window) {
  const SteadyTime windowEnd = std::min(began + window.timeout, call.deadline.time());
  while (!state.done()) {
    if (state.resumeToken.empty()) {
      Outcome o;
      o.message = call.what() + ": the cloud gave no way to follow the operation";
      return o;
    }
    SteadyTime now = clock_.steadyNow();
    SteadyTime next;
    if (state.retryAfter) {
      // The cloud's interval is honoured: no earlier poll, even to use the rest of the window.
      next = now + std::max(*state.retryAfter, kMinPollInterval);
    } else {
      next = std::min(now + options_.pollInterval, windowEnd);
    }
    // A poll at the deadline would have no time for its request.
    if (now >= windowEnd || next > windowEnd || next >= call.deadline.time() || !waitUntil(next)) {
      return parkFresh(call, state, began, windowEnd);
    }
    // The window bounds the call, requests included.
    now = clock_.steadyNow();
    const milliseconds timeout =
        std::min(requestTimeout(call), std::chrono::duration_cast<milliseconds>(windowEnd - now));
    if (timeout <= milliseconds::zero()) {
      return parkFresh(call, state, began, windowEnd);
    }
    CallResult<OpState> polled = operations_.poll(state.resumeToken, timeout);
    if (!polled) {
      const CallError& e = polled.error();
      if (e.is(CallError::Kind::NotFound)) {
        return reevaluateOnce(call, "operation unknown");
      }
      if (e.is(CallError::Kind::BadToken)) {
        // The token came from this very call: a new operation would give an unreadable one
        // again.
        removeRecord(call.records, call.key());
        return callFailed(call, e, "polling");
      }
      if (refusesPoll(e)) {
        // Never recorded: the next call begins afresh rather than polling what is refused.
        return dropRefused(call, e);
      }
      // The operation runs on; its token is still good, and so is its interval unless the
      // error brought a new one.
      if (e.retryAfter) {
        state.retryAfter = e.retryAfter;
      }
      return parkFresh(call, state, began, windowEnd);
    }
    std::string token = std::move(state.resumeToken);
    state = std::move(*polled);
    if (!state.done() && state.resumeToken.empty()) {
      state.resumeToken = std::move(token);
    }
  }
  microseconds took = since(began, clock_.steadyNow());
  adaptive_.finished(call.ref.serviceName, call.verb, took);
  metrics_.duration(call.ref.serviceName, call.verb, took);
  if (state.status == OpStatus::Canceled) {
    return reevaluateOnce(call, "operation canceled");
  }
  return finish(call, state);
}

void Engine::store(Call& call, const OpState& state, bool fresh) {
  setRecord(call.records, OperationRecord{call.key(), state.resumeToken});
  if (fresh) {
    metrics_.stored(call.ref.serviceName, call.verb);
  }
}

Outcome Engine::park(Call& call, const OpState& state, bool fresh) {
  store(call, state, fresh);
  return notDone(call, state.retryAfter, "", call.what() + " is not done");
}

Outcome Engine::parkFresh(Call& call, const OpState& state, SteadyTime began,
                          SteadyTime windowEnd) {
  // Only the window's end says how long the operation takes at least; a park before it (a
  // Retry-After past the window, a poll error, stop(), the deadline) would feed the estimate a
  // sample near zero.
  const SteadyTime now = clock_.steadyNow();
  if (now >= windowEnd) {
    adaptive_.parked(call.ref.serviceName, call.verb, since(began, now));
  }
  return park(call, state, true);
}

Outcome Engine::reevaluateOnce(Call& call, std::string_view why) {
  if (call.reevaluated) {
    removeRecord(call.records, call.key());
    Outcome o;
    o.message = call.what() + ": " + std::string(why) + " again after re-evaluation";
    return o;
  }
  dropStale(call, why);
  return evaluate(call);
}

Outcome Engine::dropRefused(Call& call, const CallError& error) {
  if (removeRecord(call.records, call.key())) {
    metrics_.dropped(call.ref.serviceName, call.verb, "refused");
    core::logInfo("lro: dropping refused operation",
                  {{"verb", verbName(call.verb)},
                   {"resource", describeResource(call.ref)},
                   {"service", call.ref.serviceName},
                   {"code", error.code.empty() ? std::string(kindName(error.kind)) : error.code}});
  }
  return callFailed(call, stillRunning(error), "polling");
}

void Engine::dropStale(Call& call, std::string_view why) {
  call.reevaluated = true;
  if (removeRecord(call.records, call.key())) {
    metrics_.dropped(call.ref.serviceName, call.verb, "stale");
    core::logInfo("lro: dropping stale future", {{"verb", verbName(call.verb)},
                                                 {"resource", describeResource(call.ref)},
                                                 {"service", call.ref.serviceName},
                                                 {"reason", why}});
  }
}

milliseconds Engine::requestTimeout(const Call& call) const {
  return call.deadline.within(options_.timeouts.call, clock_);
}

bool Engine::waitUntil(SteadyTime until) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_ && clock_.steadyNow() < until) {
    clock_.waitUntil(lock, cv_, until);
  }
  return !stopping_;
}

}  // namespace nodewright::lro
