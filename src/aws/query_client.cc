#include "aws/query_client.h"

#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "aws/error_class.h"
#include "aws/xml.h"

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

// EC2 puts it in a header (x-amzn-requestid) and in the body (<requestId>, <RequestID>).
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

QueryClient::QueryClient(const core::Clock& clock, Transport& transport, QueryClientOptions options)
    : clock_(clock),
      transport_(transport),
      options_(std::move(options)),
      sleep_(options_.sleep ? options_.sleep : clockSleep(clock)),
      retry_(options_.retry) {
  Endpoint e = splitEndpoint(options_.endpoint);
  host_ = std::move(e.host);
  path_ = std::move(e.path);
}

ApiResult<std::string> QueryClient::attemptOnce(std::string_view action, const std::string& body,
                                                const sigv4::Credentials& credentials, int attempt,
                                                std::chrono::steady_clock::time_point deadline) {
  sigv4::Request signable;
  signable.method = "POST";
  signable.path = path_;
  signable.headers.emplace("Host", host_);
  signable.headers.emplace("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
  signable.body = body;
  if (auto signedOk =
          sigv4::sign(signable, credentials, options_.region, options_.service, clock_.now());
      !signedOk) {
    return apiFail("SigningFailed", signedOk.error().message(), 0);
  }

  HttpRequest request;
  request.method = "POST";
  request.url = options_.endpoint;
  request.headers = std::move(signable.headers);
  request.body = std::move(signable.body);
  const auto started = clock_.steadyNow();
  const auto timeout = std::min(options_.attemptTimeout, toMs(deadline - started));
  auto response = transport_.send(request, std::max(timeout, std::chrono::milliseconds(1)));
  const auto elapsed = toMs(clock_.steadyNow() - started);
  if (!response) {
    spdlog::debug("aws: query failed action={} attempt={} duration-ms={} error={}", action, attempt,
                  elapsed.count(), response.error().code);
    return tl::unexpected(response.error());
  }
  const std::string requestId = requestIdOf(*response);
  spdlog::debug("aws: query action={} status={} attempt={} duration-ms={} request-id={}", action,
                response->status, attempt, elapsed.count(), requestId);
  if (response->status >= 200 && response->status < 300) {
    return std::move(response->body);
  }
  if (auto error = xml::parseEc2Error(response->body, response->status)) {
    return tl::unexpected(std::move(*error));
  }
  return apiFail("UnknownError",
                 fmt::format("HTTP {} without an error document (request id {})", response->status,
                             requestId.empty() ? "none" : requestId),
                 response->status);
}

ApiResult<std::string> QueryClient::call(std::string_view action, const ParamPairs& params) {
  ParamPairs pairs;
  pairs.reserve(params.size() + 2);
  pairs.emplace_back("Action", std::string(action));
  pairs.emplace_back("Version", options_.version);
  pairs.insert(pairs.end(), params.begin(), params.end());
  const std::string body = encodeForm(pairs);
  const auto deadline = clock_.steadyNow() + options_.callTimeout;

  RetryState state;
  while (true) {
    if (options_.limiter != nullptr) {
      // Every attempt is a request AWS counts, so each one waits for its own token.
      auto waited = options_.limiter->acquire(action, deadline, sleep_);
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
    auto result = attemptOnce(action, body, *credentials, state.attempts, deadline);
    if (result) {
      retry_.succeeded(state);
      return result;
    }
    const auto delay = retry_.nextDelay(state, result.error());
    if (!delay || clock_.steadyNow() + *delay >= deadline) {
      if (state.attempts > 1 || delay) {
        spdlog::debug("aws: query gave up action={} attempts={} error={} class={}", action,
                      state.attempts, result.error().code,
                      errorClassName(classify(result.error())));
      }
      return result;
    }
    sleep_(*delay);
  }
}

ApiResult<int> QueryClient::paginate(
    std::string_view action, const ParamPairs& params,
    const std::function<bool(const pugi::xml_document& page)>& onPage) {
  std::string token;
  int pages = 0;
  while (true) {
    ParamPairs pagePairs = params;
    if (!token.empty()) {
      pagePairs.emplace_back("NextToken", token);
    }
    auto body = call(action, pagePairs);
    if (!body) {
      return tl::unexpected(body.error());
    }
    pugi::xml_document doc;
    if (!doc.load_buffer(body->data(), body->size())) {
      return apiFail("MalformedResponse", fmt::format("{}: page {} is not XML", action, pages + 1),
                     200);
    }
    ++pages;
    if (!onPage(doc)) {
      return pages;
    }
    const std::string next = doc.document_element().child_value("nextToken");
    if (next.empty()) {
      return pages;
    }
    // A service that hands back the token it was given would keep us here forever.
    if (next == token) {
      return apiFail("PaginationLoop",
                     fmt::format("{}: page {} returned the NextToken it was sent", action, pages),
                     200);
    }
    token = next;
  }
}

}  // namespace nodewright::aws
