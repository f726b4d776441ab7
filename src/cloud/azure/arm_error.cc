#include "cloud/azure/arm_error.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "cloud/azure/http_util.h"
#include "core/text.h"

namespace nodewright::cloud::azure {
namespace {

std::string stringField(const api::Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

lro::CallError::Kind kindFor(int status, std::string_view code) {
  using Kind = lro::CallError::Kind;
  if (status == 401 || status == 403) {
    return Kind::Auth;
  }
  if (status == 404) {
    return Kind::NotFound;
  }
  if (status == 409) {
    return conflictMeansRetryLater(code) ? Kind::Conflict : Kind::Invalid;
  }
  if (status == 429) {
    return Kind::Throttled;
  }
  if (status == 408 || status >= 500) {
    return Kind::Transient;
  }
  return Kind::Invalid;
}

}  // namespace

bool conflictMeansRetryLater(std::string_view code) {
  // The 409 codes whose documented mitigation is to wait ("Troubleshoot common Azure deployment
  // errors"): another operation on the resource, the group being deleted, a deployment running.
  // Network's RetryableError says so in its name.
  static constexpr std::array<std::string_view, 5> kRetryLater = {
      "AnotherOperationInProgress", "ResourceGroupBeingDeleted", "DeploymentActive",
      "DeploymentActiveAndUneditable", "RetryableError"};
  return std::any_of(kRetryLater.begin(), kRetryLater.end(),
                     [&](std::string_view c) { return core::equalsIgnoreCase(c, code); });
}

bool deleteWaitsForDependents(std::string_view code) {
  constexpr std::string_view kInUse = "inuse";
  if (code.size() < kInUse.size()) {
    return false;
  }
  for (size_t at = 0; at + kInUse.size() <= code.size(); ++at) {
    if (core::equalsIgnoreCase(code.substr(at, kInUse.size()), kInUse)) {
      return true;
    }
  }
  return false;
}

ArmErrorBody parseArmError(std::string_view body) {
  ArmErrorBody out;
  const api::Json doc = api::Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return out;
  }
  auto error = doc.find("error");
  const api::Json* source = &doc;
  if (error != doc.end() && error->is_object()) {
    source = &*error;
  }
  out.code = stringField(*source, "code");
  out.message = stringField(*source, "message");
  return out;
}

lro::CallError callErrorFor(const HttpResponse& response, std::string_view what,
                            core::TimePoint now) {
  lro::CallError error;
  const ArmErrorBody body = parseArmError(response.body);
  error.kind = kindFor(response.status, body.code);
  error.code = body.code;
  error.message = fmt::format("{}: HTTP {}", what, response.status);
  if (!body.code.empty()) {
    error.message += fmt::format(" {}", body.code);
  }
  if (!body.message.empty()) {
    error.message += fmt::format(": {}", body.message);
  }
  error.retryAfter = retryAfterFromHeaders(response.headers, now);
  return error;
}

lro::CallError callErrorFor(const TransportError& transport, std::string_view what) {
  lro::CallError error;
  error.kind = lro::CallError::Kind::Transient;
  error.code = transport.timedOut ? "RequestTimeout" : "TransportError";
  error.message = fmt::format("{}: {}", what, transport.message);
  return error;
}

}  // namespace nodewright::cloud::azure
