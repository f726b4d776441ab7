#include "aws/signed_call.h"

#include <algorithm>

#include "aws/error_class.h"
#include "core/log.h"

namespace nodewright::aws {
namespace {

struct Endpoint {
  std::string host;  // host[:port] as the Host header carries it
  std::string path;
};

Endpoint splitEndpoint(std::string_view url) {
  std::string_view rest = url;
  std::string_view defaultPort;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
    defaultPort = ":443";
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
    defaultPort = ":80";
  }
  const size_t slash = rest.find('/');
  std::string_view host = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "/" : rest.substr(slash);
  if (host.ends_with(defaultPort)) {
    host.remove_suffix(defaultPort.size());
  }
  return {std::string(host), std::string(path)};
}

// AWS puts it in a header (x-amzn-requestid); EC2 also in the body (<requestId>, <RequestID>).
std::string requestIdOf(const HttpResponse& response) {
  for (const char* name : {"x-amzn-requestid", "x-amz-request-id"}) {
    if (auto it = response.headers.find(name); it != response.headers.end()) {
      return it->second;
    }
  }
  for (std::string_view tag : {"<requestId>", "<RequestID>", "<RequestId>"}) {
    const size_t start = response.body.find(tag);
    if (start == std::string::npos) {
      continue;
    }
    const size_t from = start + tag.size();
    const size_t end = response.body.find('<', from);
    if (end != std::string::npos && end - from <= 128) {
      return response.body.substr(from, end - from);
    }
  }
  return "";
}

std::chrono::milliseconds toMs(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

}  // namespace

SignedCaller::SignedCaller(const core::Clock& clock, Transport& transport,
                           SignedCallOptions options)
    : clock_(clock),
      transport_(transport),
      options_(std::move(options)),
      sleep_(options_.sleep ? options_.sleep : clockSleep(clock)),
      retry_(options_.retry) {
  Endpoint e = splitEndpoint(options_.endpoint);
  host_ = std::move(e.host);
  path_ = std::move(e.path);
}

ApiResult<std::string> SignedCaller::attemptOnce(const SignedRequest& request,
                                                 const ErrorReader& readError,
                                                 const sigv4::Credentials& credentials, int attempt,
                                                 std::chrono::steady_clock::time_point deadline) {
  sigv4::Request signable;
  signable.method = "POST";
  signable.path = path_;
  signable.headers = request.headers;
  signable.headers.emplace("Host", host_);
  signable.headers.emplace("Content-Type", request.contentType);
  signable.body = request.body;
  if (auto signedOk =
          sigv4::sign(signable, credentials, options_.region, options_.service, clock_.now());
      !signedOk) {
    return apiFail("SigningFailed", signedOk.error().message(), 0);
  }

  HttpRequest http;
  http.method = "POST";
  http.url = options_.endpoint;
  http.headers = std::move(signable.headers);
  http.body = std::move(signable.body);
  const auto started = clock_.steadyNow();
  const auto timeout = std::min(options_.attemptTimeout, toMs(deadline - started));
  auto response = transport_.send(http, std::max(timeout, std::chrono::milliseconds(1)));
  const auto elapsed = toMs(clock_.steadyNow() - started);
  if (!response) {
    core::logDebug("aws: call failed", {{"protocol", options_.protocol},
                                        {"action", request.operation},
                                        {"attempt", attempt},
                                        {"duration-ms", elapsed.count()},
                                        {"error", response.error().code}});
    return tl::unexpected(response.error());
  }
  const std::string requestId = requestIdOf(*response);
  core::logDebug("aws: call", {{"protocol", options_.protocol},
                               {"action", request.operation},
                               {"status", response->status},
                               {"attempt", attempt},
                               {"duration-ms", elapsed.count()},
                               {"request-id", requestId}});
  if (response->status >= 200 && response->status < 300) {
    return std::move(response->body);
  }
  return tl::unexpected(readError(*response, requestId));
}

ApiResult<std::string> SignedCaller::call(const SignedRequest& request,
                                          const ErrorReader& readError) {
  const auto deadline = clock_.steadyNow() + options_.callTimeout;
  RetryState state;
  while (true) {
    if (options_.limiter != nullptr) {
      // Every attempt is a request AWS counts, so each one waits for its own token.
      auto waited = options_.limiter->acquire(request.operation, deadline, sleep_);
      if (!waited) {
        return tl::unexpected(waited.error());
      }
    }
    // Fetched per attempt, so a retry signs with refreshed credentials. A source that fails
    // has retried on its own terms; its error is not the service's to retry.
    auto credentials = options_.credentials
                           ? options_.credentials()
                           : apiFail("NoCredentials", "the client has no credentials source", 0);
    if (!credentials) {
      return tl::unexpected(credentials.error());
    }
    ++state.attempts;
    auto result = attemptOnce(request, readError, *credentials, state.attempts, deadline);
    if (result) {
      retry_.succeeded(state);
      return result;
    }
    const auto delay = retry_.nextDelay(state, result.error());
    if (!delay || clock_.steadyNow() + *delay >= deadline) {
      if (state.attempts > 1 || delay) {
        core::logDebug("aws: call gave up", {{"protocol", options_.protocol},
                                             {"action", request.operation},
                                             {"attempts", state.attempts},
                                             {"error", result.error().code},
                                             {"class", errorClassName(classify(result.error()))}});
      }
      return result;
    }
    sleep_(*delay);
  }
}

}  // namespace nodewright::aws
