#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "http/curl_pool.h"

// The one libcurl request loop of the process. The AWS, Azure and Kubernetes clients each keep
// their own transport interface (their error vocabularies differ) and delegate the exchange
// itself here: options, headers, method and body, response collection, timeouts, keep-alive
// handles, and the socket cancellation of long-lived streams.
namespace nodewright::http {

struct CurlRequest {
  std::string method = "GET";
  std::string url;  // absolute: scheme://host[:port]/path[?query]
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;  // must outlive the call
  // Bounds the whole exchange, connecting included; zero: no bound.
  std::chrono::milliseconds timeout{30000};
  // Zero: curl's default (300 s, then `timeout` wins).
  std::chrono::milliseconds connectTimeout{0};
  // Allowed schemes as curl spells them ("https" or "https,http"); empty: curl's default.
  std::string protocols;
  // TLS: PEM certificates to trust instead of the system store, and an optional client
  // certificate with its key (all copied into the request; they need not outlive it).
  std::string_view caPem;
  std::string_view clientCertificatePem;
  std::string_view clientKeyPem;
  bool insecureSkipTlsVerify = false;
  bool noProxy = false;     // reach the peer directly, whatever the proxy environment says
  bool tcpNoDelay = false;  // small request/response exchanges (the API server)
};

struct CurlResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-case; repeated ones joined by ", "
  std::string body;
};

// Why no response arrived. `message` never carries request headers or bodies.
struct CurlFailure {
  bool timedOut = false;  // the request's timeout passed
  std::string message;
};

template <class T>
using CurlResult = tl::expected<T, CurlFailure>;

// How a stream ended when it did not fail: `endedByCaller` when onLine returned false or stop
// was requested; otherwise the server's status, with the whole body when it was not 200.
struct CurlStreamEnd {
  bool endedByCaller = false;
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

struct CurlClientOptions {
  size_t maxIdleHandles = 16;  // keep-alive handles kept between requests
  // A longer response body is abandoned (a CurlFailure); 0: no limit.
  size_t maxResponseBytes = 0;
};

// Thread-safe. Any HTTP status is a response; a CurlFailure means none arrived (refused, reset,
// TLS failure, timeout, body over the limit).
class CurlClient {
 public:
  explicit CurlClient(CurlClientOptions options = {});
  CurlClient(const CurlClient&) = delete;
  CurlClient& operator=(const CurlClient&) = delete;

  // One exchange on a pooled keep-alive handle.
  CurlResult<CurlResponse> perform(const CurlRequest& request);

  // A streamed GET on a connection of its own (never pooled): calls onLine for every non-empty
  // newline-terminated line of a 200 answer until onLine returns false, the server ends the
  // stream or `stop` is requested; a stop interrupts a blocked read at once.
  CurlResult<CurlStreamEnd> stream(const CurlRequest& request,
                                   const std::function<bool(std::string_view line)>& onLine,
                                   std::stop_token stop);

  // New connections opened so far (requests beyond these reused a pooled connection).
  uint64_t connectionsOpened() const { return connections_.load(); }

 private:
  void countConnections(CURL* handle);

  const CurlClientOptions options_;
  CurlHandlePool handles_;
  std::atomic<uint64_t> connections_{0};
};

}  // namespace nodewright::http
