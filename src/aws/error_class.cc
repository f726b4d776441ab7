#include "aws/error_class.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "aws/transport.h"

namespace nodewright::aws {
namespace {

using namespace std::string_view_literals;

template <size_t N>
bool oneOf(std::string_view code, const std::array<std::string_view, N>& codes) {
  for (std::string_view c : codes) {
    if (code == c) {
      return true;
    }
  }
  return false;
}

// The throttling codes the AWS SDKs' standard retry mode knows, across services.
constexpr std::array kThrottled = {
    "RequestLimitExceeded"sv,
    "Throttling"sv,
    "ThrottlingException"sv,
    "ThrottledException"sv,
    "RequestThrottled"sv,
    "RequestThrottledException"sv,
    "TooManyRequestsException"sv,
    "ProvisionedThroughputExceededException"sv,
    "TransactionInProgressException"sv,
    "BandwidthLimitExceeded"sv,
    "LimitExceededException"sv,
    "SlowDown"sv,
    "PriorRequestNotComplete"sv,
    "EC2ThrottledException"sv,
    "ClientRateLimited"sv,  // our own limiter could not hand out a token in time
};

// Karpenter's "unfulfillable capacity" codes (aws/pkg/errors/errors.go), plus the capacity
// codes of dedicated hosts and reservations. "Unsupported" is EC2's answer for an instance type
// not offered in the requested zone: for a launch it means "not here", like no capacity.
constexpr std::array kCapacity = {
    "InsufficientInstanceCapacity"sv,
    "InsufficientHostCapacity"sv,
    "InsufficientReservedInstanceCapacity"sv,
    "InsufficientCapacity"sv,
    "InsufficientFreeAddressesInSubnet"sv,
    "MaxSpotInstanceCountExceeded"sv,
    "VcpuLimitExceeded"sv,
    "UnfulfillableCapacity"sv,
    "ReservationCapacityExceeded"sv,
    "SpotMaxPriceTooLow"sv,
    "Unsupported"sv,
};

constexpr std::array kUnauthorized = {
    "AuthFailure"sv,
    "UnauthorizedOperation"sv,
    "SignatureDoesNotMatch"sv,
    "IncompleteSignature"sv,
    "MissingAuthenticationToken"sv,
    "InvalidClientTokenId"sv,
    "UnrecognizedClientException"sv,
    "ExpiredToken"sv,
    "ExpiredTokenException"sv,
    "InvalidToken"sv,
    "RequestExpired"sv,
    "AccessDenied"sv,
    "AccessDeniedException"sv,
    "OptInRequired"sv,
    "Blocked"sv,
    "PendingVerification"sv,
    "InvalidIdentityToken"sv,
};

constexpr std::array kInvalidParameter = {
    "InvalidParameterValue"sv,
    "InvalidParameterCombination"sv,
    "InvalidParameter"sv,
    "MissingParameter"sv,
    "UnknownParameter"sv,
    "InvalidQueryParameter"sv,
    "MalformedQueryString"sv,
    "ValidationError"sv,
    "ValidationException"sv,
    "InvalidAction"sv,
    "InvalidRequest"sv,
    "InvalidInput"sv,
    "InvalidFilter"sv,
    "InvalidNextToken"sv,
    "InvalidPaginationToken"sv,
    "InvalidUserData.Malformed"sv,
    "InvalidBlockDeviceMapping"sv,
    "InvalidInstanceType"sv,
};

// Transient without being throttles: the SDKs retry these codes whatever the status.
constexpr std::array kServer = {
    "InternalError"sv,         "InternalFailure"sv,
    "InternalServerError"sv,   "ServiceUnavailable"sv,
    "Unavailable"sv,           "ServerError"sv,
    "RequestTimeout"sv,        "RequestTimeoutException"sv,
    "IDPCommunicationError"sv,
};

bool isNotFound(std::string_view code) {
  return code.ends_with(".NotFound") || code.ends_with("NotFound") ||
         code.ends_with("NotFoundException") || code == "NoSuchEntity" || code == "NoSuchKey" ||
         code == "ParameterNotFound" || code == "QueueDoesNotExist" ||
         code == "AWS.SimpleQueueService.NonExistentQueue";
}

bool isConflict(std::string_view code) {
  return code.ends_with(".Duplicate") || code.ends_with("AlreadyExists") ||
         code.ends_with("AlreadyExistsException") || code == "IdempotentParameterMismatch" ||
         code == "IncorrectState" || code == "IncorrectInstanceState";
}

}  // namespace

const char* errorClassName(ErrorClass c) {
  switch (c) {
    case ErrorClass::Throttled:
      return "Throttled";
    case ErrorClass::Capacity:
      return "Capacity";
    case ErrorClass::NotFound:
      return "NotFound";
    case ErrorClass::InvalidParameter:
      return "InvalidParameter";
    case ErrorClass::Unauthorized:
      return "Unauthorized";
    case ErrorClass::Server:
      return "Server";
    case ErrorClass::Transport:
      return "Transport";
    case ErrorClass::Other:
      return "Other";
  }
  return "Other";
}

ErrorClass classify(const ApiError& error) {
  const std::string_view code = error.code;
  if (oneOf(code, kThrottled)) {
    return ErrorClass::Throttled;
  }
  if (error.httpStatus == 0 || code == kTransportError) {
    return ErrorClass::Transport;
  }
  if (oneOf(code, kCapacity)) {
    return ErrorClass::Capacity;
  }
  if (oneOf(code, kUnauthorized)) {
    return ErrorClass::Unauthorized;
  }
  if (isNotFound(code)) {
    return ErrorClass::NotFound;
  }
  if (oneOf(code, kInvalidParameter) || code.ends_with(".Malformed") || code.ends_with(".Range") ||
      (code.starts_with("Invalid") && code.ends_with("Value"))) {
    return ErrorClass::InvalidParameter;
  }
  if (oneOf(code, kServer)) {
    return ErrorClass::Server;
  }
  if (isConflict(code)) {
    return ErrorClass::Other;
  }
  // A code we do not know: the status says what kind of failure it was.
  if (error.httpStatus == 429) {
    return ErrorClass::Throttled;
  }
  if (error.httpStatus == 401 || error.httpStatus == 403) {
    return ErrorClass::Unauthorized;
  }
  if (error.httpStatus == 404) {
    return ErrorClass::NotFound;
  }
  if (error.httpStatus >= 500) {
    return ErrorClass::Server;
  }
  return ErrorClass::Other;
}

bool retryable(const ApiError& error) {
  switch (classify(error)) {
    case ErrorClass::Throttled:
    case ErrorClass::Server:
    case ErrorClass::Transport:
      return true;
    default:
      return false;
  }
}

core::Error toCoreError(const ApiError& error) {
  std::string message = fmt::format("{}: {}", error.code, error.message);
  switch (classify(error)) {
    case ErrorClass::Throttled:
      return {core::Code::Throttled, std::move(message)};
    case ErrorClass::Capacity:
      return {core::Code::InsufficientCapacity, std::move(message)};
    case ErrorClass::NotFound:
      return {core::Code::NotFound, std::move(message)};
    case ErrorClass::InvalidParameter:
      return {core::Code::Invalid, std::move(message)};
    case ErrorClass::Other:
      if (isConflict(error.code)) {
        return {core::Code::Conflict, std::move(message)};
      }
      return {core::Code::Internal, std::move(message)};
    default:
      return {core::Code::Internal, std::move(message)};
  }
}

}  // namespace nodewright::aws
