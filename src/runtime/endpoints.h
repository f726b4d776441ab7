#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "http/server.h"
#include "runtime/metrics.h"

// The controller's operational endpoints over plain HTTP: /metrics for Prometheus, /healthz
// (liveness) and /readyz (readiness) in kube's style. One Endpoints object listens on one
// address; --metrics-addr and --health-addr are either one object serving both or two objects
// with one flag each.
namespace nodewright::runtime {

// A named health or readiness check; an error means "not healthy/ready" with a reason.
// Called on a server thread for every probe, so it must be cheap and thread-safe.
using Check = std::function<core::Status()>;

struct EndpointsOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;         // 0 picks a free port
  bool serveMetrics = true;  // /metrics
  bool serveHealth = true;   // /healthz and /readyz
  // The registry /metrics renders; nullptr means defaultRegistry(). Must outlive the object.
  Registry* registry = nullptr;
};

// Paths (GET only; anything else is 405, unknown paths 404):
//   /metrics           text exposition format 0.0.4.
//   /healthz, /readyz  200 "ok" when every check passes (a built-in "ping" always does);
//                      otherwise 500 listing each check, "[-]name failed: reason" for failing
//                      ones, and "healthz check failed" (or readyz) last. "?verbose" lists
//                      every check also on success; "?exclude=name" (repeatable) skips checks.
// Thread-safe; checks may be added while serving.
class Endpoints {
 public:
  // Listens until stop() or destruction.
  static core::Result<std::unique_ptr<Endpoints>> start(EndpointsOptions options);
  ~Endpoints();
  Endpoints(const Endpoints&) = delete;
  Endpoints& operator=(const Endpoints&) = delete;

  // A check with an existing name replaces it.
  void addHealthCheck(std::string name, Check check);
  void addReadyCheck(std::string name, Check check);

  uint16_t port() const;
  // Closes the listener and joins every connection; idempotent.
  void stop();

 private:
  using Checks = std::vector<std::pair<std::string, Check>>;

  explicit Endpoints(EndpointsOptions options);
  void handle(const http::Request& request, http::Exchange& exchange);
  http::Response probe(const http::Request& request, const std::string& kind,
                       const Checks& registered) const;
  static void put(Checks& checks, std::string name, Check check);

  // Fixed after construction.
  const EndpointsOptions options_;
  Registry& registry_;

  mutable std::mutex mu_;
  Checks health_;  // GUARDED_BY(mu_), in registration order
  Checks ready_;   // GUARDED_BY(mu_)

  // Last, so it stops (and no handler runs) before the members above go.
  std::unique_ptr<http::Server> server_;
};

}  // namespace nodewright::runtime
