#include "cloud/azure/poller.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "cloud/azure/api_versions.h"
#include "cloud/azure/arm_error.h"
#include "cloud/azure/http_util.h"
#include "core/log.h"
#include "core/text.h"

namespace nodewright::cloud::azure {
namespace {

using Kind = lro::CallError::Kind;

// A 2xx body as JSON: null when empty, unless `required` (a GET of the resource always has
// one). A body that is not JSON (a proxy's HTML page, a truncated answer) is no answer at all:
// Transient, as get() has it, never a null result.
lro::CallResult<api::Json> parseBody(const std::string& body, const std::string& what,
                                     bool required = false) {
  const bool blank = std::all_of(body.begin(), body.end(), [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  });
  if (blank && !required) {
    return api::Json(nullptr);
  }
  api::Json doc = blank ? api::Json(api::Json::value_t::discarded)
                        : api::Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return tl::unexpected(
        lro::callError(Kind::Transient, "InvalidResponse",
                       what + (blank ? ": the body is empty" : ": the body is not JSON")));
  }
  return doc;
}

lro::OpState done(lro::OpStatus status) {
  lro::OpState state;
  state.status = status;
  return state;
}

lro::OpState running(std::string token, const HttpResponse& response, core::TimePoint now) {
  lro::OpState state;
  state.status = lro::OpStatus::InProgress;
  state.resumeToken = std::move(token);
  state.retryAfter = retryAfterFromHeaders(response.headers, now);
  return state;
}

// A Failed/Canceled state with the error of a status monitor or a resource body.
lro::OpState failed(lro::OpStatus status, const std::string& body, std::string defaultCode,
                    std::string defaultMessage) {
  lro::OpState state = done(status);
  const ArmErrorBody error = parseArmError(body);
  state.errorCode = error.code.empty() ? std::move(defaultCode) : error.code;
  state.errorMessage = error.message.empty() ? std::move(defaultMessage) : error.message;
  return state;
}

// The resource as a done PUT/PATCH returned it, or its provisioning failure.
lro::OpState fromResourceBody(lro::OpStatus status, api::Json body, const std::string& raw) {
  if (status == lro::OpStatus::Succeeded) {
    lro::OpState state = done(status);
    state.result = std::move(body);
    return state;
  }
  const std::string word = status == lro::OpStatus::Failed ? "Failed" : "Canceled";
  return failed(status, raw, "Provisioning" + word, "provisioningState is " + word);
}

// An absolute status monitor URL on the endpoint's origin.
lro::CallResult<std::string> monitorUrl(const std::string& header, const std::string& endpoint) {
  std::string url = header;
  if (url.starts_with('/')) {
    std::string base = endpoint;
    while (base.ends_with('/')) {
      base.pop_back();
    }
    url = base + url;
  }
  const auto origin = urlOrigin(url);
  if (!plainUrl(url) || !origin || origin != urlOrigin(endpoint)) {
    return tl::unexpected(lro::callError(Kind::Invalid, "InvalidStatusMonitor",
                                         "status monitor URL " + url + " is not on " + endpoint));
  }
  return url;
}

}  // namespace

// ARM allows any word but the three while an operation runs.
std::optional<lro::OpStatus> terminalStatus(std::string_view state) {
  const std::string s = core::lowerAscii(state);
  if (s == "succeeded") {
    return lro::OpStatus::Succeeded;
  }
  if (s == "failed") {
    return lro::OpStatus::Failed;
  }
  if (s == "canceled" || s == "cancelled") {
    return lro::OpStatus::Canceled;
  }
  return std::nullopt;
}

std::string provisioningState(const api::Json& resource) {
  if (!resource.is_object()) {
    return {};
  }
  auto properties = resource.find("properties");
  if (properties == resource.end() || !properties->is_object()) {
    return {};
  }
  auto state = properties->find("provisioningState");
  return state != properties->end() && state->is_string() ? state->get<std::string>() : "";
}

lro::CallResult<lro::OpState> stateAfterBegin(lro::Verb verb, const std::string& resourceId,
                                              const std::string& apiVersion,
                                              const std::string& endpoint,
                                              const HttpResponse& response, core::TimePoint now) {
  const std::string what = fmt::format("{} {}", methodName(verb), resourceId);
  if (response.status < 200 || response.status > 299) {
    lro::CallError error = callErrorFor(response, what, now);
    if (verb == lro::Verb::Delete && (response.status == 400 || response.status == 409) &&
        deleteWaitsForDependents(error.code)) {
      // A subnet with NICs, a public IP on a load balancer: freed as the teardown goes on.
      error.kind = Kind::Conflict;
    }
    return tl::unexpected(std::move(error));
  }
  const std::string asyncHeader = response.header("azure-asyncoperation");
  const std::string locationHeader = response.header("location");
  auto pollWith = [&](PollVia via, const std::string& header) -> lro::OpState {
    auto url = monitorUrl(header, endpoint);
    if (!url) {
      // Our bearer token goes to our endpoint only; the resource itself is there to poll.
      core::logWarn("azure: no usable poll URL, polling the resource instead",
                    {{"operation", what}, {"error", url.error().message}});
      return acceptedViaBody(verb, resourceId, apiVersion, response, now);
    }
    PollerState poller;
    poller.verb = verb;
    poller.resourceId = resourceId;
    poller.apiVersion = apiVersion;
    poller.via = via;
    poller.url = *url;
    return running(serializePoller(poller), response, now);
  };
  auto pollWithMonitor = [&]() -> lro::OpState {
    if (!asyncHeader.empty()) {
      return pollWith(PollVia::AsyncOperation, asyncHeader);
    }
    if (!locationHeader.empty()) {
      return pollWith(PollVia::Location, locationHeader);
    }
    return acceptedViaBody(verb, resourceId, apiVersion, response, now);
  };
  if (verb == lro::Verb::Delete) {
    if (response.status == 204) {
      // ARM answers a DELETE of a resource that does not exist with 204.
      return tl::unexpected(lro::callError(Kind::NotFound, "ResourceNotFound",
                                           what + ": HTTP 204, no such resource"));
    }
    if (response.status == 200) {
      return done(lro::OpStatus::Succeeded);
    }
    return pollWithMonitor();
  }
  auto parsed = parseBody(response.body, what);
  if (!parsed) {
    // Accepted all the same: its monitor, else the resource's provisioningState, tells how it
    // ends.
    core::logWarn("azure: unreadable response body, following the operation",
                  {{"status", response.status}, {"error", parsed.error().message}});
    return pollWithMonitor();
  }
  api::Json body = std::move(*parsed);
  const std::string state = provisioningState(body);
  if (auto terminal = terminalStatus(state)) {
    return fromResourceBody(*terminal, std::move(body), response.body);
  }
  if (!asyncHeader.empty() || !locationHeader.empty() || response.status == 202 || !state.empty()) {
    return pollWithMonitor();
  }
  // No provisioningState and no monitor: ARM's synchronous completion.
  lro::OpState result = done(lro::OpStatus::Succeeded);
  result.result = std::move(body);
  return result;
}

lro::OpState acceptedViaBody(lro::Verb verb, const std::string& resourceId,
                             const std::string& apiVersion, const HttpResponse& response,
                             core::TimePoint now) {
  PollerState poller;
  poller.verb = verb;
  poller.resourceId = resourceId;
  poller.apiVersion = apiVersion;
  poller.via = PollVia::Body;
  return running(serializePoller(poller), response, now);
}

lro::CallResult<PollOutcome> interpretPoll(const PollerState& state, const std::string& token,
                                           const HttpResponse& response, core::TimePoint now) {
  const std::string what = fmt::format("polling {} {}", methodName(state.verb), state.resourceId);
  const bool isDelete = state.verb == lro::Verb::Delete;
  const int status = response.status;
  PollOutcome out;
  auto succeeded = [&]() -> lro::CallResult<PollOutcome> {
    if (isDelete) {
      out.state = done(lro::OpStatus::Succeeded);
    } else {
      out.fetchResource = true;
      out.state = done(lro::OpStatus::Succeeded);
    }
    return out;
  };
  switch (state.via) {
    case PollVia::AsyncOperation: {
      if (status == 202) {
        out.state = running(token, response, now);
        return out;
      }
      if (status != 200 && status != 201) {
        return tl::unexpected(callErrorFor(response, what, now));
      }
      auto parsed = parseBody(response.body, what, /*required=*/true);
      if (!parsed) {
        return tl::unexpected(parsed.error());
      }
      const api::Json& body = *parsed;
      auto word = body.is_object() ? body.find("status") : body.end();
      if (!body.is_object() || word == body.end() || !word->is_string()) {
        return tl::unexpected(lro::callError(Kind::Invalid, "InvalidStatusMonitor",
                                             what + ": the status monitor sent no status"));
      }
      auto terminal = terminalStatus(word->get<std::string>());
      if (!terminal) {
        out.state = running(token, response, now);
        return out;
      }
      if (*terminal == lro::OpStatus::Succeeded) {
        return succeeded();
      }
      out.state = failed(*terminal, response.body, "Operation" + word->get<std::string>(),
                         "the operation ended " + word->get<std::string>());
      return out;
    }
    case PollVia::Location: {
      if (status == 202) {
        out.state = running(token, response, now);
        return out;
      }
      if (status == 200 || status == 201 || status == 204) {
        return succeeded();
      }
      if (status == 404 || status == 401 || status == 403 || status == 408 || status == 429 ||
          status >= 500 || status < 200) {
        return tl::unexpected(callErrorFor(response, what, now));
      }
      // Any other status is the operation's own failure, with its error document.
      out.state = failed(lro::OpStatus::Failed, response.body, fmt::format("HTTP{}", status),
                         fmt::format("the operation failed with HTTP {}", status));
      return out;
    }
    case PollVia::Body: {
      if (isDelete && (status == 404 || status == 204)) {
        out.state = done(lro::OpStatus::Succeeded);
        return out;
      }
      if (status != 200 && status != 201) {
        return tl::unexpected(callErrorFor(response, what, now));
      }
      auto parsed = parseBody(response.body, what, /*required=*/true);
      if (!parsed) {
        return tl::unexpected(parsed.error());
      }
      api::Json body = std::move(*parsed);
      const std::string word = provisioningState(body);
      auto terminal = terminalStatus(word);
      if (isDelete) {
        // The resource still exists: the delete runs until it is gone, unless it failed.
        if (terminal && *terminal != lro::OpStatus::Succeeded) {
          out.state = fromResourceBody(*terminal, std::move(body), response.body);
        } else {
          out.state = running(token, response, now);
        }
        return out;
      }
      if (word.empty()) {
        out.state = fromResourceBody(lro::OpStatus::Succeeded, std::move(body), response.body);
      } else if (terminal) {
        out.state = fromResourceBody(*terminal, std::move(body), response.body);
      } else {
        out.state = running(token, response, now);
      }
      return out;
    }
  }
  return tl::unexpected(lro::callError(Kind::BadToken, "InvalidResumeToken", what));
}

lro::CallResult<lro::OpState> stateAfterFinalGet(const PollerState& state,
                                                 const HttpResponse& response,
                                                 core::TimePoint now) {
  const std::string what =
      fmt::format("reading {} after {}", state.resourceId, methodName(state.verb));
  if (response.status != 200) {
    return tl::unexpected(callErrorFor(response, what, now));
  }
  auto body = parseBody(response.body, what, /*required=*/true);
  if (!body) {
    return tl::unexpected(body.error());
  }
  lro::OpState out = done(lro::OpStatus::Succeeded);
  out.result = std::move(*body);
  return out;
}

}  // namespace nodewright::cloud::azure
