#include "cloud/azure/transport.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "http/curl_client.h"

namespace nodewright::cloud::azure {
namespace {

// azure::Transport over the process's one libcurl loop (http::CurlClient).
class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(CurlTransportOptions options)
      : options_(std::move(options)),
        client_(http::CurlClientOptions{.maxIdleHandles = options_.maxIdleHandles,
                                        .maxResponseBytes = options_.maxResponseBytes}) {}

  // azure::Transport
  TransportResult<HttpResponse> send(const HttpRequest& request,
                                     std::chrono::milliseconds timeout) override {
    http::CurlRequest curl;
    curl.method = request.method;
    curl.url = request.url;
    curl.headers = request.headers;
    curl.body = request.body;
    // A zero timeout would mean none to curl; the contract bounds every exchange.
    curl.timeout = std::max(timeout, std::chrono::milliseconds(1));
    // Bearer tokens and client secrets travel over TLS only.
    curl.protocols = request.allowPlainHttp ? "https,http" : "https";
    curl.caPem = options_.caPem;
    auto response = client_.perform(curl);
    if (!response) {
      if (response.error().timedOut) {
        return tl::unexpected(
            TransportError{true, fmt::format("no response within {} ms: {}", timeout.count(),
                                             response.error().message)});
      }
      return tl::unexpected(TransportError{false, std::move(response.error().message)});
    }
    return HttpResponse{response->status, std::move(response->headers), std::move(response->body)};
  }

 private:
  const CurlTransportOptions options_;
  http::CurlClient client_;
};

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

TransportPtr makeCurlTransport(CurlTransportOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace nodewright::cloud::azure
