#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "apiserver/max_in_flight.h"
#include "core/clock.h"
#include "core/error.h"
#include "http/server.h"

// The embedded Kubernetes-compatible API server: HTTPS with a bearer token, SQLite storage,
// the REST API of every kind of the resource model, and its garbage collector.
namespace nodewright::apiserver {

struct ApiServerOptions {
  std::string dataDir = ".nodewright";
  std::string host = "127.0.0.1";
  uint16_t port = 6443;  // 0 picks a free port
  std::chrono::milliseconds bookmarkInterval{std::chrono::seconds(15)};
  size_t watchHistory = 10000;
  bool fsync = true;
  // When set, one JSON line per answered API request is appended to this file (see
  // apiserver/request_log.h for the format); empty: no request log.
  std::string requestLog{};
  // Requests served at once (kube-apiserver's defaults), counted once authenticated.
  InFlightLimits inFlight{};
  // Connections, their timeouts and sizes (kube-apiserver's serving defaults).
  http::ConnectionLimits connections{};
};

class ApiServer {
 public:
  virtual ~ApiServer() = default;
  virtual uint16_t port() const = 0;
  // "https://127.0.0.1:PORT"
  virtual std::string url() const = 0;
  // DIR/kubeconfig, written 0600 once the port is known.
  virtual std::string kubeconfigPath() const = 0;
  virtual void stop() = 0;
};

core::Result<std::unique_ptr<ApiServer>> startApiServer(const ApiServerOptions& options,
                                                        const core::Clock& clock);

}  // namespace nodewright::apiserver
