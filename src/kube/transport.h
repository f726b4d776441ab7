#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "kube/config.h"
#include "kube/errors.h"

// HTTP to the API server. Requests reuse pooled connections; a watch holds its own connection
// for its whole life and can be cancelled from another thread at once.
namespace nodewright::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query: "/api/v1/namespaces/x/pods?limit=500"
  std::string body;
  std::string contentType = "application/json";
  std::string accept = "application/json";
  // Zero: the config's timeout (watches pass their own, longer than timeoutSeconds).
  std::chrono::milliseconds timeout{0};
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string retryAfter;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // A response of any status; an ApiError only when none arrived (Unavailable, Timeout).
  virtual ApiResult<HttpResponse> send(const HttpRequest& request) = 0;
  // Calls onLine for every line of a streamed 200 response until onLine returns false, the server
  // ends it, or `stop` is requested. A non-200 answer returns its classified error.
  virtual ApiStatus stream(const HttpRequest& request,
                           const std::function<bool(std::string_view line)>& onLine,
                           std::stop_token stop) = 0;
  // New connections opened so far (requests beyond these reused a pooled connection).
  virtual uint64_t connectionsOpened() const = 0;
};

core::Result<std::unique_ptr<Transport>> makeTransport(const RestConfig& config);

}  // namespace nodewright::kube
