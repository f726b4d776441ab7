#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

// The HTTP seam under the ARM client and the token credentials: one request in, one response
// (or none) out.
namespace nodewright::cloud::azure {

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute: https://host[:port]/path[?query]
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Plain http:// is refused unless this is set: only the managed identity endpoint (IMDS, on
  // a link-local address, sent no secret) may be reached without TLS.
  bool allowPlainHttp = false;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-case; repeated ones joined by ", "
  std::string body;

  // The header's value, empty when absent. `name` is lower-case.
  std::string header(const std::string& name) const;
};

// Why no response arrived.
struct TransportError {
  bool timedOut = false;  // the call's timeout passed
  std::string message;    // never carries request headers or bodies
};

template <class T>
using TransportResult = tl::expected<T, TransportError>;

// Sends HTTP requests. Any HTTP status is a response; an error means none arrived (refused,
// reset, TLS failure, timeout). Implementations are thread-safe and never log requests' headers
// (Authorization) or bodies (client secrets, assertions).
class Transport {
 public:
  virtual ~Transport() = default;
  // `timeout` bounds the whole exchange, connecting included.
  virtual TransportResult<HttpResponse> send(const HttpRequest& request,
                                             std::chrono::milliseconds timeout) = 0;
};
using TransportPtr = std::unique_ptr<Transport>;

struct CurlTransportOptions {
  // PEM certificates to trust instead of the system store (an emulator's generated CA).
  std::string caPem;
  size_t maxIdleHandles = 16;  // keep-alive handles kept between requests
  // A longer response body is abandoned (a TransportError): ARM's largest answers, SKU lists,
  // are a few MiB.
  size_t maxResponseBytes = 16 * 1024 * 1024;
};

// libcurl with a pool of keep-alive handles; verifies TLS peers and host names; https only,
// unless a request allows plain http.
TransportPtr makeCurlTransport(CurlTransportOptions options = {});

}  // namespace nodewright::cloud::azure
