#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "api/reflect/json.h"
#include "lro/operation.h"

// What one engine call achieved, in the terms a reconciler acts on (controller-runtime's
// Result): Done moves on, NotDone and Error come back later, Failed needs a change.
namespace nodewright::lro {

struct Outcome {
  enum class Kind {
    Done,     // the resource is as specified (or gone, for a delete)
    NotDone,  // an operation is in progress, or the resource is busy or throttled: requeue
    Failed,   // the cloud said Failed or refused the request, or the spec has an error
    Error,    // no usable answer (timeout, 5xx, auth, deadline): transient, back off
  };
  Kind kind = Kind::Error;
  // Done PUT/PATCH: the resource as the cloud returned it (null when it sent no body).
  api::Json result;
  // NotDone: when to look again (the cloud's Retry-After, else Timeouts::requeue). Error: the
  // cloud's Retry-After when it sent one; otherwise the caller backs off. Never below 1 s: a
  // zero requeue means "no requeue" to a reconciler.
  std::optional<std::chrono::milliseconds> requeueAfter;
  std::string message;    // names the resource: "operation PUT on rg/vnet (virtualnetworks) ..."
  std::string errorCode;  // the cloud's error code, "AnotherOperationInProgress", ...

  bool done() const { return kind == Kind::Done; }
  bool notDone() const { return kind == Kind::NotDone; }
  // Worth retrying as is.
  bool transient() const { return kind == Kind::NotDone || kind == Kind::Error; }
};

const char* outcomeKindName(Outcome::Kind kind);

// "rg/vnet-1 (virtualnetworks)"; just the name and service without a resource group.
std::string describeResource(const ResourceRef& resource);

}  // namespace nodewright::lro
