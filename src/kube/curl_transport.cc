#include <tuple>
#include <utility>

#include "http/curl_client.h"
#include "kube/transport.h"

namespace nodewright::kube {
namespace {

ApiError transportError(const http::CurlFailure& failure) {
  ApiError error;
  error.reason = failure.timedOut ? Reason::Timeout : Reason::Unavailable;
  error.message = failure.message;
  return error;
}

std::string headerOf(const std::map<std::string, std::string>& headers, const std::string& name) {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

// kube::Transport over the process's one libcurl loop (http::CurlClient), with the config's
// credentials on every request.
class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(RestConfig config)
      : config_(std::move(config)),
        credentials_(makeCredentials(config_)),
        client_(http::CurlClientOptions{.maxIdleHandles = 64}) {}

  ApiResult<HttpResponse> send(const HttpRequest& request) override {
    // One retry after a 401 when a plugin's credential may have expired early (client-go does
    // the same for exec plugins).
    for (int attempt = 0;; ++attempt) {
      auto response = sendOnce(request);
      if (!response || response->status != 401 || attempt > 0 || !config_.exec) {
        return response;
      }
      credentials_->invalidate();
    }
  }

  ApiStatus stream(const HttpRequest& request,
                   const std::function<bool(std::string_view line)>& onLine,
                   std::stop_token stop) override {
    Prepared prepared;
    if (auto made = prepare(request, prepared); !made) {
      return made;
    }
    auto ended = client_.stream(prepared.curl, onLine, std::move(stop));
    if (!ended) {
      return tl::unexpected(transportError(ended.error()));
    }
    if (!ended->endedByCaller && ended->status != 0 && ended->status != 200) {
      return tl::unexpected(
          classify(ended->status, ended->body, headerOf(ended->headers, "retry-after")));
    }
    return {};
  }

  uint64_t connectionsOpened() const override { return client_.connectionsOpened(); }

 private:
  // A request and the credentials it points into.
  struct Prepared {
    http::CurlRequest curl;
    std::string certificate;
    std::string key;
  };

  ApiStatus prepare(const HttpRequest& request, Prepared& out) {
    http::CurlRequest& curl = out.curl;
    curl.method = request.method;
    curl.url = config_.server + request.target;
    curl.body = request.body;
    curl.timeout = request.timeout.count() > 0 ? request.timeout : config_.timeout;
    curl.connectTimeout = std::chrono::seconds(10);
    curl.protocols = "https,http";
    curl.noProxy = true;  // the API server is reached directly
    curl.tcpNoDelay = true;
    curl.caPem = config_.caPem;
    curl.insecureSkipTlsVerify = config_.insecureSkipTlsVerify;
    out.certificate = config_.clientCertificatePem;
    out.key = config_.clientKeyPem;
    if (auto fromPlugin = credentials_->clientCertificate()) {
      std::tie(out.certificate, out.key) = *fromPlugin;
    }
    curl.clientCertificatePem = out.certificate;
    curl.clientKeyPem = out.key;
    auto token = credentials_->token();
    if (!token) {
      return tl::unexpected(
          ApiError{Reason::Unauthorized, 0, token.error().message(), {}, std::nullopt});
    }
    if (!token->empty()) {
      curl.headers.emplace_back("Authorization", "Bearer " + *token);
    }
    curl.headers.emplace_back("Accept", request.accept);
    curl.headers.emplace_back("User-Agent", config_.userAgent);
    if (request.method != "GET" && (!request.body.empty() || request.method != "DELETE")) {
      curl.headers.emplace_back("Content-Type", request.contentType);
    }
    return {};
  }

  ApiResult<HttpResponse> sendOnce(const HttpRequest& request) {
    Prepared prepared;
    if (auto made = prepare(request, prepared); !made) {
      return tl::unexpected(made.error());
    }
    auto response = client_.perform(prepared.curl);
    if (!response) {
      return tl::unexpected(transportError(response.error()));
    }
    return HttpResponse{response->status, std::move(response->body),
                        headerOf(response->headers, "retry-after")};
  }

  RestConfig config_;
  std::unique_ptr<Credentials> credentials_;
  http::CurlClient client_;
};

}  // namespace

core::Result<std::unique_ptr<Transport>> makeTransport(const RestConfig& config) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return core::fail(
        core::Error::invalid("server: must start with https:// (got \"" + config.server + "\")"));
  }
  return std::unique_ptr<Transport>(std::make_unique<CurlTransport>(config));
}

}  // namespace nodewright::kube
