#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>

#include "http/curl_pool.h"
#include "kube/transport.h"

namespace nodewright::kube {
namespace {

struct Received {
  std::string body;
  std::string retryAfter;
};

size_t collectBody(char* data, size_t size, size_t count, void* user) {
  static_cast<Received*>(user)->body.append(data, size * count);
  return size * count;
}

size_t collectHeader(char* data, size_t size, size_t count, void* user) {
  std::string_view line(data, size * count);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    if (match) {
      std::string_view value = line.substr(kName.size());
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() &&
             (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
        value.remove_suffix(1);
      static_cast<Received*>(user)->retryAfter = std::string(value);
    }
  }
  return size * count;
}

ApiError transportError(CURLcode code, const char* detail) {
  ApiError error;
  error.reason = code == CURLE_OPERATION_TIMEDOUT ? Reason::Timeout : Reason::Unavailable;
  error.message = detail && *detail ? std::string(detail) : std::string(curl_easy_strerror(code));
  return error;
}

// A watch's socket, so another thread can cut the stream short.
struct StreamSocket {
  std::mutex mu;
  curl_socket_t fd = CURL_SOCKET_BAD;
};

int recordSocket(void* user, curl_socket_t fd, curlsocktype) {
  auto* s = static_cast<StreamSocket*>(user);
  std::lock_guard lock(s->mu);
  s->fd = fd;
  return CURL_SOCKOPT_OK;
}

int closeSocket(void* user, curl_socket_t fd) {
  auto* s = static_cast<StreamSocket*>(user);
  std::lock_guard lock(s->mu);
  if (s->fd == fd) s->fd = CURL_SOCKET_BAD;
  return ::close(fd);
}

struct StreamState {
  CURL* handle = nullptr;
  const std::function<bool(std::string_view)>* onLine = nullptr;
  std::stop_token stop;
  long status = 0;
  std::string pending;  // a line not yet complete
  Received error;       // the body of a non-200 answer
  bool consumerDone = false;
};

size_t streamBody(char* data, size_t size, size_t count, void* user) {
  auto* s = static_cast<StreamState*>(user);
  const size_t n = size * count;
  if (s->status == 0) curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
  if (s->status != 200) {
    s->error.body.append(data, n);
    return n;
  }
  s->pending.append(data, n);
  size_t start = 0;
  for (size_t nl; (nl = s->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(s->pending.data() + start, nl - start);
    if (line.empty()) continue;
    if (!(*s->onLine)(line)) {
      s->consumerDone = true;
      return 0;  // ends the transfer
    }
  }
  s->pending.erase(0, start);
  return n;
}

int streamProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<StreamState*>(user)->stop.stop_requested() ? 1 : 0;
}

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(RestConfig config)
      : config_(std::move(config)), credentials_(makeCredentials(config_)) {}

  ApiResult<HttpResponse> send(const HttpRequest& request) override {
    // One retry after a 401 when a plugin's credential may have expired early (client-go does
    // the same for exec plugins).
    for (int attempt = 0;; ++attempt) {
      auto response = sendOnce(request);
      if (!response || response->status != 401 || attempt > 0 || !config_.exec) return response;
      credentials_->invalidate();
    }
  }

  ApiStatus stream(const HttpRequest& request,
                   const std::function<bool(std::string_view line)>& onLine,
                   std::stop_token stop) override {
    CURL* handle = curl_easy_init();
    if (!handle) return tl::unexpected(ApiError{Reason::Other, 0, "curl_easy_init failed", {}, {}});
    http::CurlHeaders headers;
    if (auto status = prepare(handle, request, headers); !status) {
      curl_easy_cleanup(handle);
      return status;
    }
    StreamSocket socket;
    StreamState state;
    state.handle = handle;
    state.onLine = &onLine;
    state.stop = stop;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, recordSocket);
    curl_easy_setopt(handle, CURLOPT_SOCKOPTDATA, &socket);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, closeSocket);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, &socket);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, streamBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &state);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &state.error);
    curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, streamProgress);
    curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &state);
    curl_easy_setopt(handle, CURLOPT_FORBID_REUSE, 1L);
    CURLcode code;
    {
      // Shutting the socket down wakes the blocked read at once; the progress callback covers
      // the moments before the socket exists.
      std::stop_callback cancel(stop, [&socket] {
        std::lock_guard lock(socket.mu);
        if (socket.fd != CURL_SOCKET_BAD) ::shutdown(socket.fd, SHUT_RDWR);
      });
      code = curl_easy_perform(handle);
    }
    if (state.status == 0) curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &state.status);
    countConnections(handle);
    curl_easy_cleanup(handle);
    if (state.consumerDone || stop.stop_requested()) return {};
    if (state.status != 0 && state.status != 200)
      return tl::unexpected(
          classify(static_cast<int>(state.status), state.error.body, state.error.retryAfter));
    if (code != CURLE_OK) return tl::unexpected(transportError(code, errorBuffer));
    return {};
  }

  uint64_t connectionsOpened() const override { return connections_.load(); }

 private:
  void countConnections(CURL* handle) {
    long opened = 0;
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &opened);
    connections_ += static_cast<uint64_t>(opened);
  }

  ApiStatus prepare(CURL* handle, const HttpRequest& request, http::CurlHeaders& headers) {
    curl_easy_setopt(handle, CURLOPT_URL, (config_.server + request.target).c_str());
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "https,http");
    curl_easy_setopt(handle, CURLOPT_PROXY, "");  // the API server is reached directly
    auto timeout = request.timeout.count() > 0 ? request.timeout : config_.timeout;
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    if (!config_.caPem.empty()) {
      curl_blob ca{const_cast<char*>(config_.caPem.data()), config_.caPem.size(), CURL_BLOB_COPY};
      curl_easy_setopt(handle, CURLOPT_CAINFO_BLOB, &ca);
    }
    if (config_.insecureSkipTlsVerify) {
      curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    std::string certificate = config_.clientCertificatePem;
    std::string key = config_.clientKeyPem;
    if (auto fromPlugin = credentials_->clientCertificate())
      std::tie(certificate, key) = *fromPlugin;
    if (!certificate.empty()) {
      curl_blob cert{certificate.data(), certificate.size(), CURL_BLOB_COPY};
      curl_blob k{key.data(), key.size(), CURL_BLOB_COPY};
      curl_easy_setopt(handle, CURLOPT_SSLCERT_BLOB, &cert);
      curl_easy_setopt(handle, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(handle, CURLOPT_SSLKEY_BLOB, &k);
      curl_easy_setopt(handle, CURLOPT_SSLKEYTYPE, "PEM");
    }
    auto token = credentials_->token();
    if (!token) {
      return tl::unexpected(
          ApiError{Reason::Unauthorized, 0, token.error().message(), {}, std::nullopt});
    }
    if (!token->empty()) headers.add("Authorization: Bearer " + *token);
    headers.add("Accept: " + request.accept);
    headers.add("User-Agent: " + config_.userAgent);
    if (request.method == "GET") {
      curl_easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      if (!request.body.empty() || request.method != "DELETE") {
        headers.add("Content-Type: " + request.contentType);
        curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
        curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, request.body.c_str());
      }
    }
    headers.add("Expect:");  // no 100-continue round trip for larger bodies
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.list);
    return {};
  }

  ApiResult<HttpResponse> sendOnce(const HttpRequest& request) {
    CURL* handle = handles_.acquire();
    if (!handle) return tl::unexpected(ApiError{Reason::Other, 0, "curl_easy_init failed", {}, {}});
    http::CurlHeaders headers;
    Received received;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    auto prepared = prepare(handle, request, headers);
    if (!prepared) {
      handles_.release(handle);
      return tl::unexpected(prepared.error());
    }
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collectBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &received);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &received);
    CURLcode code = curl_easy_perform(handle);
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    countConnections(handle);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
    handles_.release(handle);
    if (code != CURLE_OK) return tl::unexpected(transportError(code, errorBuffer));
    return HttpResponse{static_cast<int>(status), std::move(received.body),
                        std::move(received.retryAfter)};
  }

  RestConfig config_;
  std::unique_ptr<Credentials> credentials_;
  http::CurlHandlePool handles_{64};
  std::atomic<uint64_t> connections_{0};
};

}  // namespace

core::Result<std::unique_ptr<Transport>> makeTransport(const RestConfig& config) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0)
    return core::fail(
        core::Error::invalid("server: must start with https:// (got \"" + config.server + "\")"));
  return std::unique_ptr<Transport>(std::make_unique<CurlTransport>(config));
}

}  // namespace nodewright::kube
