#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "api/reflect/json.h"
#include "core/error.h"

#include <tl/expected.hpp>

// The cloud side of long-running operations, as the futures engine (lro/engine.h) sees it. A
// cloud's client implements Operations (cloud/azure for ARM); the engine knows nothing of the
// cloud's protocol, only these states and an opaque resume token it parks in an
// OperationRecord (records.h).
namespace nodewright::lro {

enum class Verb { Put, Patch, Delete };

// "PUT", "PATCH", "DELETE", for logs and metric labels.
const char* verbName(Verb verb);

// Which resource an operation is about. `id` is the cloud's full resource path
// (/subscriptions/…/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet); the
// other fields key its OperationRecord and name the resource in conditions and logs.
struct ResourceRef {
  std::string id;
  std::string resourceGroup;
  std::string serviceName;  // "virtualnetworks", "publicips": the CAPZ service it belongs to
  std::string name;
};

enum class OpStatus { InProgress, Succeeded, Failed, Canceled };

// Where an operation stands after begin() or poll().
struct OpState {
  OpStatus status = OpStatus::InProgress;
  // The serialized poller, non-empty while InProgress: everything poll() needs, in any process.
  std::string resumeToken;
  // The cloud's Retry-After, when it sent one.
  std::optional<std::chrono::milliseconds> retryAfter;
  // Failed / Canceled: the cloud's error code and message.
  std::string errorCode;
  std::string errorMessage;
  // Succeeded PUT/PATCH: the resource as the cloud returned it (null when it sent no body).
  api::Json result;

  bool done() const { return status != OpStatus::InProgress; }
};

// Why a call to the cloud got no usable answer.
struct CallError {
  enum class Kind {
    NotFound,   // the resource, or for poll() the operation, is unknown
    Conflict,   // another operation on the resource is in progress (ARM 409)
    Throttled,  // 429: retry after retryAfter
    Transient,  // 5xx, connection failure, the call's timeout: retry
    Invalid,    // the request was refused (4xx), or the client is misconfigured: not as is
    Auth,       // no token, or the cloud refused it
    // poll() only: the resume token cannot be followed (garbled, another version, a status
    // monitor off our endpoint). With NotFound, a stale record, dropped and re-evaluated at once.
    // Invalid and Auth from poll() drop the record too (refused: the engine reports the error
    // and the next call begins afresh); any other leaves the operation running in the cloud and
    // its token worth keeping.
    BadToken,
  };
  Kind kind = Kind::Transient;
  std::string code;  // the cloud's error code, when it sent one
  std::string message;
  std::optional<std::chrono::milliseconds> retryAfter;

  bool is(Kind k) const { return kind == k; }
};
const char* kindName(CallError::Kind kind);
inline CallError callError(CallError::Kind kind, std::string code, std::string message) {
  return CallError{kind, std::move(code), std::move(message), std::nullopt};
}

template <class T>
using CallResult = tl::expected<T, CallError>;

class Operations {
 public:
  virtual ~Operations() = default;

  // The resource as it exists now; NotFound when it does not.
  virtual CallResult<api::Json> get(const ResourceRef& resource,
                                    std::chrono::milliseconds timeout) = 0;
  // Sends the request that starts the operation (PUT/PATCH with `parameters`, or DELETE). A
  // synchronous completion returns a done state; DELETE of a missing resource returns NotFound.
  virtual CallResult<OpState> begin(Verb verb, const ResourceRef& resource,
                                    const api::Json& parameters,
                                    std::chrono::milliseconds timeout) = 0;
  // Polls once with a token from begin() or an earlier poll() (possibly another process's).
  // NotFound: the cloud no longer knows the operation. A token this client cannot read is
  // BadToken (never Invalid: that is kept for refusals and configuration errors).
  virtual CallResult<OpState> poll(const std::string& resumeToken,
                                   std::chrono::milliseconds timeout) = 0;
  // The resource's own word that an operation on it is still running (ARM: a provisioningState
  // other than Succeeded, Failed or Canceled), or nullopt. A resource that needs no request is
  // not Done while it says so: one a process created before it died, its future unrecorded, is
  // still being built, and what depends on it must wait.
  virtual std::optional<std::string> operationInProgress(const api::Json& resource) const {
    (void)resource;
    return std::nullopt;
  }
};

// What one resource needs to be, as CAPZ's ResourceSpecGetter: its reference and the body to
// PUT given what exists.
class ResourceSpec {
 public:
  virtual ~ResourceSpec() = default;

  virtual ResourceRef resource() const = 0;
  // The PUT body for the resource as it exists (`existing`: null when it does not exist), or
  // nullopt when it is up to date and nothing is sent. An error is a spec problem (a terminal
  // failure of this service until the spec changes).
  virtual core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const = 0;
};

}  // namespace nodewright::lro
