#pragma once

#include <string_view>

#include "aws/error.h"
#include "core/error.h"

// What an AWS error means to its caller. AWS error codes are an open set that differs by
// service; callers branch on these few classes instead of on code strings.
namespace nodewright::aws {

enum class ErrorClass {
  Throttled,         // RequestLimitExceeded, Throttling, 429, SlowDown...: wait and retry
  Capacity,          // InsufficientInstanceCapacity...: try another pool, not the same one
  NotFound,          // InvalidInstanceID.NotFound, *NotFoundException...
  InvalidParameter,  // InvalidParameterValue, MissingParameter, *.Malformed...
  Unauthorized,      // AuthFailure, UnauthorizedOperation, SignatureDoesNotMatch, 401, 403...
  Server,            // InternalError, Unavailable, other 5xx
  Transport,         // no response at all (httpStatus 0): refused, reset, timed out
  Other,             // anything else, e.g. IdempotentParameterMismatch, *.AlreadyExists
};

const char* errorClassName(ErrorClass c);

// Decided by code first, then by HTTP status: EC2 sends InsufficientInstanceCapacity with 500,
// which is a capacity answer, not a server fault.
ErrorClass classify(const ApiError& error);

// Throttled, Server and Transport errors may succeed when sent again; the others will not.
bool retryable(const ApiError& error);

// The core::Error a provider returns for `error` (Throttled, InsufficientCapacity, NotFound,
// Invalid, else Internal), with message "Code: message".
core::Error toCoreError(const ApiError& error);

}  // namespace nodewright::aws
