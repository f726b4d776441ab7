#pragma once

#include <string>

#include "lro/engine.h"

// Internal to the engine's translation units (engine.cc, engine_outcomes.cc).
namespace nodewright::lro {

struct Engine::Call {
  Verb verb;
  const ResourceSpec& spec;
  ResourceRef ref;
  OperationRecords& records;
  Deadline deadline;
  bool reevaluated = false;

  OperationKey key(Verb v) const { return operationKey(ref, v); }
  OperationKey key() const { return key(verb); }

  std::string what() const {
    return std::string("operation ") + verbName(verb) + " on " + describeResource(ref);
  }
};

// A poll() error that no retry of the same poll will change: the status monitor refused it
// (Invalid: a 4xx such as 400, 403 or a 409 that is not "busy", or a client misconfigured for
// it; Auth: 401/403). CAPZ drops a future whose resumed poller errs like this and sends the
// request again on a later reconcile; a parked operation that is polled for good would never
// end otherwise. NotFound and BadToken are stale records, handled apart.
inline bool refusesPoll(const CallError& error) {
  return error.is(CallError::Kind::Invalid) || error.is(CallError::Kind::Auth);
}

// A refused poll's error as the outcome reports it: Invalid becomes Transient, keeping its
// code, so the outcome is an Error with the normal back-off (the next call sends the request
// again, which the cloud may well accept) rather than a terminal Failed.
CallError stillRunning(CallError error);

}  // namespace nodewright::lro
