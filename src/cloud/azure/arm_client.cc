#include "cloud/azure/arm_client.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "cloud/azure/arm_error.h"
#include "cloud/azure/http_util.h"
#include "cloud/azure/poller.h"
#include "core/log.h"

namespace nodewright::cloud::azure {
namespace {

using Kind = lro::CallError::Kind;

bool retryable(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

std::string trimSlashes(std::string s) {
  while (s.ends_with('/')) {
    s.pop_back();
  }
  return s;
}

// The path of a URL, for logs: no scheme, host or query.
std::string_view pathOf(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    url.remove_prefix(scheme + 3);
    const size_t slash = url.find('/');
    url.remove_prefix(slash == std::string_view::npos ? url.size() : slash);
  }
  return url.substr(0, url.find('?'));
}

// Why `endpoint` cannot be ARM's: bearer tokens go over TLS only, as the Azure SDKs insist.
std::optional<lro::CallError> endpointProblem(const std::string& endpoint) {
  const std::optional<std::string> origin = urlOrigin(endpoint);
  if (!origin || !plainUrl(endpoint)) {
    return lro::callError(Kind::Invalid, "InvalidEndpoint",
                          "ARM endpoint " + endpoint + " is not an absolute https URL");
  }
  if (!origin->starts_with("https://")) {
    return lro::callError(
        Kind::Invalid, "InsecureEndpoint",
        "ARM endpoint " + endpoint + " is not https: bearer tokens are never sent over plain HTTP");
  }
  return std::nullopt;
}

// The last guard of the lro::Operations methods: no exception reaches the engine's threads.
// Transient: it says nothing of the request (bad_alloc, a bug on one answer), and an Invalid
// would end a running operation's future.
lro::CallError unexpectedException(std::string_view what, const char* why) {
  return lro::callError(Kind::Transient, "InternalError", fmt::format("{}: {}", what, why));
}

}  // namespace

ArmClient::ArmClient(ArmClientOptions options, Transport& transport, TokenCredential& credential,
                     const core::Clock& clock)
    : options_(std::move(options)),
      endpoint_(trimSlashes(options_.endpoint)),
      configError_(endpointProblem(endpoint_)),
      transport_(transport),
      credential_(credential),
      clock_(clock) {}

lro::CallResult<ArmClient::Target> ArmClient::target(const std::string& id) const {
  if (configError_) {
    return tl::unexpected(*configError_);
  }
  if (!validResourceId(id)) {
    return tl::unexpected(
        lro::callError(Kind::Invalid, "InvalidResourceId", "not an ARM resource id: " + id));
  }
  const std::string type = *resourceTypeOf(id);
  auto version = apiVersionForType(type, options_.apiVersions);
  if (!version) {
    return tl::unexpected(lro::callError(
        Kind::Invalid, "NoApiVersion", fmt::format("no api-version known for {} ({})", type, id)));
  }
  if (!validApiVersion(*version)) {
    return tl::unexpected(
        lro::callError(Kind::Invalid, "InvalidApiVersion",
                       fmt::format("api-version {} for {} is not a date", *version, type)));
  }
  Target out;
  out.url = resourceUrl(id, *version);
  out.apiVersion = *version;
  return out;
}

std::string ArmClient::resourceUrl(const std::string& id, const std::string& apiVersion) const {
  return withApiVersion(endpoint_ + id, apiVersion);
}

lro::CallResult<api::Json> ArmClient::get(const lro::ResourceRef& resource,
                                          std::chrono::milliseconds timeout) {
  try {
    return getUnguarded(resource, timeout);
  } catch (const std::exception& e) {
    return tl::unexpected(unexpectedException("GET " + resource.id, e.what()));
  }
}

lro::CallResult<lro::OpState> ArmClient::begin(lro::Verb verb, const lro::ResourceRef& resource,
                                               const api::Json& parameters,
                                               std::chrono::milliseconds timeout) {
  try {
    return beginUnguarded(verb, resource, parameters, timeout);
  } catch (const std::exception& e) {
    return tl::unexpected(
        unexpectedException(fmt::format("{} {}", methodName(verb), resource.id), e.what()));
  }
}

lro::CallResult<lro::OpState> ArmClient::poll(const std::string& resumeToken,
                                              std::chrono::milliseconds timeout) {
  try {
    return pollUnguarded(resumeToken, timeout);
  } catch (const std::exception& e) {
    return tl::unexpected(unexpectedException("polling", e.what()));
  }
}

std::optional<std::string> ArmClient::operationInProgress(const api::Json& resource) const {
  std::string state = provisioningState(resource);
  if (state.empty() || terminalStatus(state)) {
    return std::nullopt;
  }
  return state;
}

lro::CallResult<api::Json> ArmClient::getUnguarded(const lro::ResourceRef& resource,
                                                   std::chrono::milliseconds timeout) {
  const Deadline deadline = clock_.steadyNow() + timeout;
  auto to = target(resource.id);
  if (!to) {
    return tl::unexpected(to.error());
  }
  auto response = send("GET", to->url, nullptr, deadline);
  if (!response) {
    return tl::unexpected(response.error());
  }
  if (response->status != 200) {
    return tl::unexpected(callErrorFor(*response, "GET " + resource.id, clock_.now()));
  }
  api::Json body = api::Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return tl::unexpected(lro::callError(Kind::Transient, "InvalidResponse",
                                         "GET " + resource.id + ": the body is not JSON"));
  }
  return body;
}

lro::CallResult<std::vector<api::Json>> ArmClient::list(const std::string& collectionId,
                                                        std::chrono::milliseconds timeout) {
  try {
    return listUnguarded(collectionId, timeout);
  } catch (const std::exception& e) {
    return tl::unexpected(unexpectedException("GET " + collectionId, e.what()));
  }
}

lro::CallResult<std::vector<api::Json>> ArmClient::listUnguarded(
    const std::string& collectionId, std::chrono::milliseconds timeout) {
  // Bounds a server whose nextLinks never end.
  constexpr int kMaxPages = 1000;
  const Deadline deadline = clock_.steadyNow() + timeout;
  // A collection id is an item's id without its name: the item's type gives the api-version.
  auto to = target(collectionId + "/item");
  if (!to) {
    return tl::unexpected(to.error());
  }
  std::vector<api::Json> items;
  std::string url = resourceUrl(collectionId, to->apiVersion);
  for (int page = 0; page < kMaxPages; ++page) {
    auto response = send("GET", url, nullptr, deadline);
    if (!response) {
      return tl::unexpected(response.error());
    }
    if (response->status != 200) {
      return tl::unexpected(callErrorFor(*response, "GET " + collectionId, clock_.now()));
    }
    api::Json body = api::Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    const auto value = body.is_object() ? body.find("value") : body.end();
    if (body.is_discarded() || value == body.end() || !value->is_array()) {
      return tl::unexpected(lro::callError(Kind::Transient, "InvalidResponse",
                                           "GET " + collectionId + ": the body is not a list"));
    }
    for (api::Json& item : *value) {
      items.push_back(std::move(item));
    }
    const auto next = body.find("nextLink");
    if (next == body.end() || !next->is_string() || next->get<std::string>().empty()) {
      return items;
    }
    url = next->get<std::string>();
    if (urlOrigin(url) != urlOrigin(endpoint_)) {
      // Our bearer token goes to our endpoint only.
      return tl::unexpected(
          lro::callError(Kind::Invalid, "InvalidNextLink",
                         "GET " + collectionId + ": nextLink leaves " + endpoint_));
    }
  }
  return tl::unexpected(
      lro::callError(Kind::Transient, "TooManyPages",
                     fmt::format("GET {}: more than {} pages", collectionId, kMaxPages)));
}

lro::CallResult<lro::OpState> ArmClient::beginUnguarded(lro::Verb verb,
                                                        const lro::ResourceRef& resource,
                                                        const api::Json& parameters,
                                                        std::chrono::milliseconds timeout) {
  const Deadline deadline = clock_.steadyNow() + timeout;
  auto to = target(resource.id);
  if (!to) {
    return tl::unexpected(to.error());
  }
  std::string body;
  if (verb != lro::Verb::Delete) {
    // Strings that are not UTF-8 cannot be JSON: the spec is refused rather than altered.
    try {
      body = parameters.dump();
    } catch (const api::Json::type_error& e) {
      return tl::unexpected(lro::callError(Kind::Invalid, "InvalidParameters",
                                           fmt::format("{} {}: the parameters are not JSON: {}",
                                                       methodName(verb), resource.id, e.what())));
    }
  }
  auto response =
      send(methodName(verb), to->url, verb == lro::Verb::Delete ? nullptr : &body, deadline);
  if (!response) {
    return tl::unexpected(response.error());
  }
  try {
    return stateAfterBegin(verb, resource.id, to->apiVersion, endpoint_, *response, clock_.now());
  } catch (const std::exception& e) {
    if (response->status < 200 || response->status > 299) {
      throw;
    }
    // ARM accepted the operation: a future must be parked, or the next reconcile resends it.
    core::logWarn("azure: unreadable response, polling the resource", {{"method", methodName(verb)},
                                                                       {"resource", resource.id},
                                                                       {"status", response->status},
                                                                       {"error", e.what()}});
    return acceptedViaBody(verb, resource.id, to->apiVersion, *response, clock_.now());
  }
}

lro::CallResult<lro::OpState> ArmClient::pollUnguarded(const std::string& resumeToken,
                                                       std::chrono::milliseconds timeout) {
  const Deadline deadline = clock_.steadyNow() + timeout;
  if (configError_) {
    return tl::unexpected(*configError_);
  }
  auto state = parsePoller(resumeToken);
  if (!state) {
    return tl::unexpected(state.error());
  }
  std::string url;
  if (state->via == PollVia::Body) {
    url = resourceUrl(state->resourceId, state->apiVersion);
  } else if (urlOrigin(state->url) != urlOrigin(endpoint_)) {
    // The token may come from an object anyone with write access to its status could edit:
    // our bearer token goes to our endpoint only.
    return tl::unexpected(
        lro::callError(Kind::BadToken, "InvalidResumeToken",
                       "resume token polls " + state->url + ", not " + endpoint_));
  } else {
    url = state->url;
  }
  auto response = send("GET", url, nullptr, deadline);
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto outcome = interpretPoll(*state, resumeToken, *response, clock_.now());
  if (!outcome) {
    return tl::unexpected(outcome.error());
  }
  if (!outcome->fetchResource) {
    return outcome->state;
  }
  auto resource = send("GET", resourceUrl(state->resourceId, state->apiVersion), nullptr, deadline);
  if (!resource) {
    return tl::unexpected(resource.error());
  }
  return stateAfterFinalGet(*state, *resource, clock_.now());
}

lro::CallResult<HttpResponse> ArmClient::send(const std::string& method, const std::string& url,
                                              const std::string* body, Deadline deadline) {
  const std::string what = fmt::format("{} {}", method, pathOf(url));
  for (int attempt = 1;; ++attempt) {
    const auto started = clock_.steadyNow();
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - started);
    if (remaining.count() <= 0) {
      return tl::unexpected(
          lro::callError(Kind::Transient, "RequestTimeout", what + ": the call's timeout passed"));
    }
    auto token = credential_.getToken(options_.scope, remaining);
    if (!token) {
      lro::CallError error = token.error();
      error.message =
          fmt::format("{}: acquiring a {} token: {}", what, credential_.name(), error.message);
      return tl::unexpected(std::move(error));
    }
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.headers = {{"Authorization", "Bearer " + token->token},
                       {"Accept", "application/json"},
                       {"User-Agent", options_.userAgent}};
    if (body != nullptr) {
      request.headers.emplace_back("Content-Type", "application/json");
      request.body = *body;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_.steadyNow());
    if (left < options_.minRequestTime) {
      // A request that cannot get its answer in time may still take effect (a PUT starts an
      // operation whose poller is then lost): better not to send it.
      return tl::unexpected(lro::callError(
          Kind::Transient, "RequestTimeout",
          fmt::format("{}: {} ms left of the call's timeout, not sent", what, left.count())));
    }
    auto response = transport_.send(request, left);
    const auto elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock_.steadyNow() - started).count();
    std::optional<std::chrono::milliseconds> wait;
    if (!response) {
      core::logDebug("azure: arm request failed", {{"method", method},
                                                   {"path", pathOf(url)},
                                                   {"attempt", attempt},
                                                   {"duration-ms", elapsedMs},
                                                   {"error", response.error().message}});
      if (response.error().timedOut || attempt >= options_.maxAttempts) {
        return tl::unexpected(callErrorFor(response.error(), what));
      }
    } else {
      core::logDebug("azure: arm request", {{"method", method},
                                            {"path", pathOf(url)},
                                            {"status", response->status},
                                            {"attempt", attempt},
                                            {"duration-ms", elapsedMs}});
      if (!retryable(response->status) || attempt >= options_.maxAttempts) {
        return std::move(*response);
      }
      wait = retryAfterFromHeaders(response->headers, clock_.now());
    }
    if (!wait) {
      const auto backoff = options_.baseDelay * (int64_t{1} << std::min(attempt - 1, 20));
      wait = std::min<std::chrono::milliseconds>(backoff, options_.maxDelay);
    }
    const Deadline resendAt = clock_.steadyNow() + *wait;
    if (resendAt + options_.minRequestTime >= deadline) {
      // The wait, and a request after it, do not fit in this call: the caller hears when to
      // come back instead (a resend with too little time left would not even be sent).
      if (!response) {
        return tl::unexpected(callErrorFor(response.error(), what));
      }
      return std::move(*response);
    }
    sleepUntil(resendAt);
  }
}

void ArmClient::sleepUntil(Deadline until) {
  std::unique_lock lock(sleepMu_);
  while (clock_.steadyNow() < until) {
    clock_.waitUntil(lock, sleepCv_, until);
  }
}

}  // namespace nodewright::cloud::azure
