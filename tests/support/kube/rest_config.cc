#include "support/kube/rest_config.h"

#include <cstdio>
#include <cstdlib>

namespace nodewright::kube::testing {
namespace {

RestConfig orAbort(core::Result<RestConfig> config) {
  if (!config) {
    std::fprintf(stderr, "test kubeconfig: %s\n", config.error().message().c_str());
    std::abort();
  }
  return *config;
}

}  // namespace

RestConfig restConfigFor(const apiserver::testing::TestApiServer& server) {
  return orAbort(loadKubeconfig(server.kubeconfig()));
}

RestConfig restConfigFromDataDir(const std::string& dataDir) {
  return orAbort(loadKubeconfig(dataDir + "/kubeconfig"));
}

std::unique_ptr<Client> clientFor(const RestConfig& config) {
  auto client = Client::create(config);
  if (!client) {
    std::fprintf(stderr, "test client: %s\n", client.error().message().c_str());
    std::abort();
  }
  return std::move(*client);
}

}  // namespace nodewright::kube::testing
