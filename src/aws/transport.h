#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "aws/error.h"
#include "aws/sigv4.h"

// The HTTP seam under every AWS client: one request in, one response (or no response) out.
namespace nodewright::aws {

struct HttpRequest {
  std::string method = "POST";
  std::string url;  // absolute: scheme://host[:port]/path[?query]
  sigv4::Headers headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-case; repeated ones joined by ", "
  std::string body;
};

// Sends HTTP requests. Implementations are thread-safe.
//
// Any HTTP status, 4xx and 5xx included, is a response, not an error: the caller reads the
// service's error document from it. An error means no response arrived (connection refused,
// reset, TLS failure, timeout): code "RequestTimeout" when `timeout` passed, otherwise
// "TransportError"; httpStatus is 0 in both.
class Transport {
 public:
  virtual ~Transport() = default;
  // `timeout` bounds the whole exchange, connecting included.
  virtual ApiResult<HttpResponse> send(const HttpRequest& request,
                                       std::chrono::milliseconds timeout) = 0;
};
using TransportPtr = std::unique_ptr<Transport>;

// libcurl, with a pool of keep-alive handles reused across calls and threads. Verifies TLS
// peers with the system's CA store.
TransportPtr makeCurlTransport();

// The error codes of send() when no response arrived.
inline constexpr const char* kTransportError = "TransportError";
inline constexpr const char* kRequestTimeout = "RequestTimeout";

}  // namespace nodewright::aws
