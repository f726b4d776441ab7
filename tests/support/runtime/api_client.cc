#include "support/runtime/api_client.h"

#include <cstdio>
#include <cstdlib>

namespace nodewright::runtime::testing {

std::unique_ptr<kube::Client> apiClient(const apiserver::testing::TestApiServer& server,
                                        std::chrono::milliseconds timeout) {
  kube::RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(server.port());
  config.caPem = server.caPem();
  config.bearerToken = server.token();
  while (!config.bearerToken.empty() &&
         (config.bearerToken.back() == '\n' || config.bearerToken.back() == '\r')) {
    config.bearerToken.pop_back();
  }
  config.timeout = timeout;
  config.source = "test API server";
  auto client = kube::Client::create(config);
  if (!client) {
    std::fprintf(stderr, "test client: %s\n", client.error().message().c_str());
    std::abort();
  }
  return std::move(*client);
}

}  // namespace nodewright::runtime::testing
