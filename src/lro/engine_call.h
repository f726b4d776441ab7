#pragma once

#include <string>

#include "lro/engine.h"

// Internal to the engine's translation units (engine.cc, engine_outcomes.cc).
namespace nodewright::lro {

struct Engine::Call {
  Verb verb;
  const ResourceSpec& spec;
  ResourceRef ref;
  Futures& futures;
  Deadline deadline;
  bool reevaluated = false;

  std::string what() const {
    return std::string("operation ") + verbName(verb) + " on " + describeResource(ref);
  }
};

// A poll() error for an operation that still runs in the cloud: Invalid (a refusal or a
// configuration error, which a fix clears) becomes Transient, keeping its code, so the outcome
// is an Error with the normal back-off rather than a terminal Failed.
CallError stillRunning(CallError error);

}  // namespace nodewright::lro
