#pragma once

#include <string>
#include <string_view>

#include "cloud/azure/transport.h"
#include "core/time.h"
#include "lro/operation.h"

// How ARM's answers that are not the resource become lro::CallError.
namespace nodewright::cloud::azure {

struct ArmErrorBody {
  std::string code;
  std::string message;
};

// The {"error": {"code", "message"}} document ARM returns with a failure, or the bare
// {"code", "message"} some services send; empty fields when the body is neither.
ArmErrorBody parseArmError(std::string_view body);

// Whether a 409's code means "retry once the resource is free" (AnotherOperationInProgress,
// ResourceGroupBeingDeleted, ...), case-insensitively. Other 409s (RoleAssignmentExists,
// OperationNotAllowed for a quota, MissingSubscriptionRegistration) stay until someone acts.
bool conflictMeansRetryLater(std::string_view code);

// Whether a DELETE refused with this code (400 or 409) waits for the resource's dependents:
// the "in use" codes (InUseSubnetCannotBeDeleted, NicInUse, PublicIPAddressInUse,
// InUseNetworkSecurityGroupCannotBeDeleted, InUseRouteTableCannotBeDeleted, ...: any code
// with "InUse", case-insensitively). During a teardown they clear once the dependents are
// gone, so stateAfterBegin makes them Conflict (requeue, "Deleting"), never a terminal Invalid.
bool deleteWaitsForDependents(std::string_view code);

// The meaning of a failed response, by status: 401/403 Auth, 404 NotFound, 409 Conflict when
// conflictMeansRetryLater(code), else Invalid, 429 Throttled with the Retry-After, 408 and
// 5xx Transient, any other 4xx Invalid. ARM's code is kept in CallError::code. The message names
// the request ("GET <path>") and carries ARM's code and message, never a header.
lro::CallError callErrorFor(const HttpResponse& response, std::string_view what,
                            core::TimePoint now);

// A transport failure (no response): Transient.
lro::CallError callErrorFor(const TransportError& error, std::string_view what);

}  // namespace nodewright::cloud::azure
