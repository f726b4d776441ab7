#include "aws/transport.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "http/curl_client.h"

namespace nodewright::aws {
namespace {

// aws::Transport over the process's one libcurl loop (http::CurlClient).
class CurlTransport final : public Transport {
 public:
  CurlTransport() : client_(http::CurlClientOptions{.maxIdleHandles = 32}) {}

  // aws::Transport
  ApiResult<HttpResponse> send(const HttpRequest& request,
                               std::chrono::milliseconds timeout) override {
    http::CurlRequest curl;
    curl.method = request.method;
    curl.url = request.url;
    curl.headers.assign(request.headers.begin(), request.headers.end());
    curl.body = request.body;
    // A zero timeout would mean none to curl; the contract bounds every exchange.
    curl.timeout = std::max(timeout, std::chrono::milliseconds(1));
    auto response = client_.perform(curl);
    if (!response) {
      if (response.error().timedOut) {
        return apiFail(
            kRequestTimeout,
            fmt::format("no response within {} ms: {}", timeout.count(), response.error().message),
            0);
      }
      return apiFail(kTransportError, response.error().message, 0);
    }
    return HttpResponse{response->status, std::move(response->headers), std::move(response->body)};
  }

 private:
  http::CurlClient client_;
};

}  // namespace

TransportPtr makeCurlTransport() {
  return std::make_unique<CurlTransport>();
}

}  // namespace nodewright::aws
