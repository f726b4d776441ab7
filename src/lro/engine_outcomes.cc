#include <algorithm>
#include <string>
#include <utility>

#include "core/log.h"
#include "lro/engine.h"
#include "lro/engine_call.h"

// How the engine words its outcomes: finished operations, failed calls, requeues.
namespace nodewright::lro {

using std::chrono::milliseconds;

namespace {

// A requeue of zero is "no requeue" to a reconciler: the operation would never be looked at
// again.
constexpr milliseconds kMinRequeueAfter{1000};

std::string errorText(const std::string& code, const std::string& message) {
  if (code.empty()) {
    return message;
  }
  return message.empty() ? code : code + ": " + message;
}

}  // namespace

CallError stillRunning(CallError error) {
  if (error.is(CallError::Kind::Invalid)) {
    if (error.code.empty()) {
      error.code = kindName(CallError::Kind::Invalid);
    }
    error.kind = CallError::Kind::Transient;
  }
  return error;
}

const char* outcomeKindName(Outcome::Kind kind) {
  switch (kind) {
    case Outcome::Kind::Done:
      return "Done";
    case Outcome::Kind::NotDone:
      return "NotDone";
    case Outcome::Kind::Failed:
      return "Failed";
    case Outcome::Kind::Error:
      return "Error";
  }
  return "Error";
}

std::string describeResource(const ResourceRef& resource) {
  std::string out =
      resource.resourceGroup.empty() ? resource.name : resource.resourceGroup + "/" + resource.name;
  return out + " (" + resource.serviceName + ")";
}

Outcome Engine::finish(Call& call, const OpState& state) {
  // Done either way: a failed operation is tried afresh next time, not resumed.
  removeRecord(call.records, call.key());
  Outcome o;
  if (state.status == OpStatus::Succeeded) {
    o.kind = Outcome::Kind::Done;
    o.result = state.result;
    return o;
  }
  o.kind = Outcome::Kind::Failed;
  o.errorCode = state.errorCode.empty()
                    ? std::string(state.status == OpStatus::Canceled ? "Canceled" : "Failed")
                    : state.errorCode;
  o.message = call.what() + " failed: " + errorText(state.errorCode, state.errorMessage);
  return o;
}

Outcome Engine::callFailed(Call& call, const CallError& error, std::string_view doing) {
  std::string detail =
      call.what() + ": " + std::string(doing) + ": " +
      errorText(error.code.empty() ? kindName(error.kind) : error.code, error.message);
  switch (error.kind) {
    case CallError::Kind::Conflict:
      return notDone(call, error.retryAfter,
                     error.code.empty() ? "AnotherOperationInProgress" : error.code, detail);
    case CallError::Kind::Throttled:
      return notDone(call, error.retryAfter, error.code.empty() ? "Throttled" : error.code, detail);
    case CallError::Kind::Invalid:
    case CallError::Kind::BadToken: {
      Outcome o;
      o.kind = Outcome::Kind::Failed;
      o.errorCode = error.code.empty() ? kindName(error.kind) : error.code;
      o.message = std::move(detail);
      return o;
    }
    case CallError::Kind::NotFound:
    case CallError::Kind::Transient:
    case CallError::Kind::Auth:
      break;
  }
  Outcome o;
  o.kind = Outcome::Kind::Error;
  o.errorCode = error.code.empty() ? kindName(error.kind) : error.code;
  if (error.retryAfter) {
    o.requeueAfter = std::max(*error.retryAfter, kMinRequeueAfter);
  }
  o.message = std::move(detail);
  return o;
}

Outcome Engine::notDone(Call& call, std::optional<milliseconds> retryAfter, std::string code,
                        std::string message) {
  Outcome o;
  o.kind = Outcome::Kind::NotDone;
  o.requeueAfter = std::max(retryAfter.value_or(options_.timeouts.requeue), kMinRequeueAfter);
  o.errorCode = std::move(code);
  o.message = std::move(message);
  metrics_.notDone(call.ref.serviceName, call.verb);
  // An operation in progress is the normal state of things, not an error (CAPZ issue 2112).
  core::logDebug("lro: not done",
                 {{"verb", verbName(call.verb)},
                  {"resource", describeResource(call.ref)},
                  {"service", call.ref.serviceName},
                  {"requeue-after-ms", o.requeueAfter->count()},
                  {"reason", o.errorCode.empty() ? std::string("in-progress") : o.errorCode}});
  return o;
}

Outcome Engine::deadlineExceeded(Call& call) {
  Outcome o;
  o.kind = Outcome::Kind::Error;
  o.errorCode = "DeadlineExceeded";
  o.message = call.what() + ": the service or reconcile deadline has passed";
  return o;
}

}  // namespace nodewright::lro
