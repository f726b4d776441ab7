#pragma once

#include <string>
#include <string_view>

#include "cloud/azure/transport.h"
#include "core/time.h"
#include "lro/operation.h"

// The state of an ARM long-running operation between polls, and the ARM rules for reading each
// answer (https://github.com/Azure/azure-resource-manager-rpc, async-api-reference.md):
//   - Azure-AsyncOperation: GET the status monitor until {"status"} is terminal; a PUT/PATCH's
//     result is then a GET of the resource itself.
//   - Location: GET it; 202 is running, 200/201/204 is done (a PUT/PATCH's result is a GET of the
//     resource), any other failure status is the operation's failure.
//   - Body: GET the resource until properties.provisioningState is terminal; for a DELETE,
//     until the resource answers 404.
// A poller serializes to a compact JSON string, the Future's data, that any process of ours
// can resume; it carries URLs and names only, never a token.
namespace nodewright::cloud::azure {

enum class PollVia { AsyncOperation, Location, Body };

struct PollerState {
  lro::Verb verb = lro::Verb::Put;
  std::string resourceId;  // /subscriptions/…, the resource the operation is about
  std::string apiVersion;  // of the resource's own GETs, fixed when the operation began
  PollVia via = PollVia::Body;
  std::string url;  // the absolute status monitor URL; empty for Body

  bool operator==(const PollerState&) const = default;
};

inline constexpr int kPollerVersion = 1;

// {"v":1,"verb":"PUT","id":…,"api":…,"via":"async"|"location"|"body"[,"url":…]}
std::string serializePoller(const PollerState& state);
// BadToken for anything serializePoller does not produce: garbled JSON, another version,
// unknown or missing fields, an unknown verb or mechanism, an id that is not a resource id, a
// URL that is not absolute http(s).
lro::CallResult<PollerState> parsePoller(std::string_view token);

// Where the first response of an operation leaves it: done (a synchronous completion), or
// InProgress with the serialized poller as resumeToken and the response's Retry-After. Status
// monitor URLs must have `endpoint`'s origin (a token never sends our bearer token elsewhere);
// relative ones are resolved against it. A failure status is the call's CallError. A 2xx that
// is accepted but cannot be followed as sent (a body that is not JSON, a monitor on another
// origin) is polled via the resource's own URL (PollVia::Body): ARM has the operation, and
// without a token to park the next reconcile would send it again.
lro::CallResult<lro::OpState> stateAfterBegin(lro::Verb verb, const std::string& resourceId,
                                              const std::string& apiVersion,
                                              const std::string& endpoint,
                                              const HttpResponse& response, core::TimePoint now);

// InProgress with a PollVia::Body poller of the resource, the response's Retry-After kept.
lro::OpState acceptedViaBody(lro::Verb verb, const std::string& resourceId,
                             const std::string& apiVersion, const HttpResponse& response,
                             core::TimePoint now);

// One poll's answer read: the state, or (fetchResource) that the operation succeeded and its
// result is the resource's GET, read with stateAfterFinalGet.
struct PollOutcome {
  lro::OpState state;
  bool fetchResource = false;
};
// `response` answers GET state.url (or the resource's URL for Body). `token` is the token
// polled, kept as the resumeToken while the operation runs.
lro::CallResult<PollOutcome> interpretPoll(const PollerState& state, const std::string& token,
                                           const HttpResponse& response, core::TimePoint now);
// The resource's GET after its PUT/PATCH succeeded: Succeeded with it as the result; NotFound
// when it is gone (deleted by someone else since).
lro::CallResult<lro::OpState> stateAfterFinalGet(const PollerState& state,
                                                 const HttpResponse& response, core::TimePoint now);

// "PUT", "PATCH", "DELETE".
const char* methodName(lro::Verb verb);

// properties.provisioningState of a resource body; empty when absent.
std::string provisioningState(const api::Json& resource);
// Succeeded, Failed and Canceled (any case) end an operation; nullopt for any other word.
std::optional<lro::OpStatus> terminalStatus(std::string_view state);

}  // namespace nodewright::cloud::azure
