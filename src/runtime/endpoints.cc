#include "runtime/endpoints.h"

#include <set>

#include "core/log.h"

namespace nodewright::runtime {
namespace {

const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
const char* kTextContentType = "text/plain; charset=utf-8";

// A reason on one line, so one check is one line of the probe's body.
std::string oneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return text;
}

}  // namespace

Endpoints::Endpoints(EndpointsOptions options)
    : options_(std::move(options)),
      registry_(options_.registry ? *options_.registry : defaultRegistry()) {
  Check ping = [] { return core::ok(); };
  health_.emplace_back("ping", ping);
  ready_.emplace_back("ping", ping);
}

core::Result<std::unique_ptr<Endpoints>> Endpoints::start(EndpointsOptions options) {
  std::unique_ptr<Endpoints> endpoints(new Endpoints(std::move(options)));
  http::ServerOptions serverOptions;
  serverOptions.host = endpoints->options_.host;
  serverOptions.port = endpoints->options_.port;
  serverOptions.maxBodyBytes = 64 * 1024;  // probes and scrapes have no body
  Endpoints* self = endpoints.get();
  auto server = http::startServer(std::move(serverOptions),
                                  [self](const http::Request& request, http::Exchange& exchange) {
                                    self->handle(request, exchange);
                                  });
  if (!server) {
    return core::fail(server.error().wrap("starting the metrics and health endpoints"));
  }
  endpoints->server_ = std::move(*server);
  return endpoints;
}

Endpoints::~Endpoints() {
  stop();
}

void Endpoints::addHealthCheck(std::string name, Check check) {
  std::lock_guard lock(mu_);
  put(health_, std::move(name), std::move(check));
}

void Endpoints::addReadyCheck(std::string name, Check check) {
  std::lock_guard lock(mu_);
  put(ready_, std::move(name), std::move(check));
}

uint16_t Endpoints::port() const {
  return server_ ? server_->port() : 0;
}

void Endpoints::stop() {
  if (server_) {
    server_->stop();
  }
}

void Endpoints::put(Checks& checks, std::string name, Check check) {
  for (auto& [existing, fn] : checks) {
    if (existing == name) {
      fn = std::move(check);
      return;
    }
  }
  checks.emplace_back(std::move(name), std::move(check));
}

void Endpoints::handle(const http::Request& request, http::Exchange& exchange) {
  const std::string& path = request.path;
  const bool known = (options_.serveMetrics && path == "/metrics") ||
                     (options_.serveHealth && (path == "/healthz" || path == "/readyz"));
  if (!known) {
    exchange.respond({404, kTextContentType, "404 page not found\n", {}});
    return;
  }
  if (request.method != "GET") {
    exchange.respond({405, kTextContentType, "method not allowed\n", {{"Allow", "GET"}}});
    return;
  }
  if (path == "/metrics") {
    exchange.respond({200, kMetricsContentType, registry_.render(), {}});
    return;
  }
  Checks checks;
  {
    // Copied so that slow checks run without the lock (and may add checks themselves).
    std::lock_guard lock(mu_);
    checks = path == "/healthz" ? health_ : ready_;
  }
  exchange.respond(probe(request, path.substr(1), checks));
}

http::Response Endpoints::probe(const http::Request& request, const std::string& kind,
                                const Checks& registered) const {
  std::set<std::string> excluded;
  for (auto [it, end] = request.query.equal_range("exclude"); it != end; ++it) {
    excluded.insert(it->second);
  }
  const bool verbose = request.hasParam("verbose");

  std::string lines;
  bool failed = false;
  for (const auto& [name, check] : registered) {
    if (excluded.erase(name)) {
      lines += "[+]" + name + " excluded: ok\n";
      continue;
    }
    core::Status status = check();
    if (status) {
      lines += "[+]" + name + " ok\n";
      continue;
    }
    failed = true;
    lines += "[-]" + name + " failed: " + oneLine(status.error().message()) + "\n";
    core::logDebug("health: check failed",
                   {{"kind", kind}, {"check", name}, {"reason", status.error().message()}});
  }
  for (const std::string& name : excluded) {
    lines += "warn: some " + kind + " checks cannot be excluded: no matches for \"" + name + "\"\n";
  }

  // As kube: terse on success unless asked, always itemised on failure.
  if (failed) {
    return {500, kTextContentType, lines + kind + " check failed\n", {}};
  }
  if (!verbose) {
    return {200, kTextContentType, "ok", {}};
  }
  return {200, kTextContentType, lines + kind + " check passed\n", {}};
}

}  // namespace nodewright::runtime
