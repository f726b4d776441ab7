#include "runtime/client_metrics.h"

namespace nodewright::runtime {
namespace {

class ClientMetrics final : public kube::RequestObserver {
 public:
  ClientMetrics(Registry& registry, std::string host)
      : host_(std::move(host)),
        requests_(registry.counter(
            "rest_client_requests_total",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            {"code", "method", "host"})),
        latency_(registry.histogram("rest_client_request_duration_seconds",
                                    "Request latency in seconds. Broken down by verb, and host.",
                                    {"verb", "host"}, Registry::exponentialBuckets(0.001, 2, 16))) {
  }

  void observe(const std::string& verb, const std::string& method, int code,
               double seconds) override {
    requests_.with({code ? std::to_string(code) : "<error>", method, host_}).inc();
    latency_.with({verb, host_}).observe(seconds);
  }

 private:
  std::string host_;
  Family<Counter>& requests_;
  Family<Histogram>& latency_;
};

}  // namespace

std::unique_ptr<kube::RequestObserver> clientMetrics(Registry& registry, std::string host) {
  auto scheme = host.find("://");
  if (scheme != std::string::npos) {
    host = host.substr(scheme + 3);
  }
  return std::make_unique<ClientMetrics>(registry, std::move(host));
}

}  // namespace nodewright::runtime
