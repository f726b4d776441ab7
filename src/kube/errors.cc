#include "kube/errors.h"

#include <cstdlib>

#include <fmt/format.h>

#include "api/reflect/json.h"

namespace nodewright::kube {
namespace {

Reason byCode(int code, const std::string& statusReason) {
  switch (code) {
    case 400:
    case 422:
      return Reason::Invalid;
    case 401:
      return Reason::Unauthorized;
    case 403:
      return Reason::Forbidden;
    case 404:
      return Reason::NotFound;
    case 408:
    case 504:
      return Reason::Timeout;
    case 409:
      return statusReason == "AlreadyExists" ? Reason::AlreadyExists : Reason::Conflict;
    case 410:
      return Reason::Gone;
    case 412:
      return Reason::Conflict;
    case 429:
      return Reason::TooManyRequests;
    default:
      return code >= 500 ? Reason::ServerError : Reason::Other;
  }
}

// Retry-After is seconds here (the apiserver never sends an HTTP date).
std::optional<std::chrono::milliseconds> parseRetryAfter(const std::string& value) {
  if (value.empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  long seconds = std::strtol(value.c_str(), &end, 10);
  if (end == value.c_str() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

}  // namespace

const char* reasonName(Reason reason) {
  switch (reason) {
    case Reason::NotFound:
      return "NotFound";
    case Reason::AlreadyExists:
      return "AlreadyExists";
    case Reason::Conflict:
      return "Conflict";
    case Reason::Invalid:
      return "Invalid";
    case Reason::Gone:
      return "Gone";
    case Reason::TooManyRequests:
      return "TooManyRequests";
    case Reason::Timeout:
      return "Timeout";
    case Reason::Unauthorized:
      return "Unauthorized";
    case Reason::Forbidden:
      return "Forbidden";
    case Reason::ServerError:
      return "ServerError";
    case Reason::Unavailable:
      return "Unavailable";
    case Reason::Other:
      return "Other";
  }
  return "Other";
}

bool ApiError::transient() const {
  switch (reason) {
    case Reason::TooManyRequests:
    case Reason::Timeout:
    case Reason::ServerError:
    case Reason::Unavailable:
      return true;
    default:
      return false;
  }
}

std::string ApiError::describe() const {
  std::string out = code ? fmt::format("{} ({}): {}", reasonName(reason), code, message)
                         : fmt::format("{}: {}", reasonName(reason), message);
  for (const auto& cause : causes) {
    out += "\n  " + cause;
  }
  return out;
}

core::Error ApiError::toError() const {
  core::Code c = core::Code::Internal;
  switch (reason) {
    case Reason::NotFound:
      c = core::Code::NotFound;
      break;
    case Reason::AlreadyExists:
    case Reason::Conflict:
      c = core::Code::Conflict;
      break;
    case Reason::Invalid:
      c = core::Code::Invalid;
      break;
    case Reason::TooManyRequests:
      c = core::Code::Throttled;
      break;
    default:
      break;
  }
  return core::Error(c, describe());
}

ApiError classify(int code, const std::string& body, const std::string& retryAfter) {
  ApiError error;
  error.code = code;
  std::string statusReason;
  auto status = api::Json::parse(body, nullptr, false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    error.message = status.value("message", "");
    statusReason = status.value("reason", "");
    if (auto details = status.find("details"); details != status.end() && details->is_object()) {
      if (auto causes = details->find("causes"); causes != details->end() && causes->is_array()) {
        for (const auto& cause : *causes) {
          if (!cause.is_object()) {
            continue;
          }
          std::string field = cause.value("field", "");
          std::string message = cause.value("message", "");
          error.causes.push_back(field.empty() ? message : field + ": " + message);
        }
      }
    }
    // A 500 the server labels as a timeout is still a timeout.
    if (statusReason == "Timeout" || statusReason == "ServerTimeout") {
      error.reason = Reason::Timeout;
    }
  } else {
    error.message = body.substr(0, 512);
  }
  if (error.message.empty()) {
    error.message = fmt::format("HTTP {}", code);
  }
  if (error.reason == Reason::Other) {
    error.reason = byCode(code, statusReason);
  }
  error.retryAfter = parseRetryAfter(retryAfter);
  return error;
}

}  // namespace nodewright::kube
