// A pod's own identity, as client-go's rest.InClusterConfig: the service's address from the
// environment the kubelet sets, the projected service-account token and the cluster CA.
#include <cstdlib>
#include <string>

#include "kube/config.h"
#include "kube/local_file.h"

namespace nodewright::kube {

core::Result<RestConfig> inClusterConfig(const std::string& saDir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return core::fail(core::Error::notFound(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "set"));
  }
  std::string hostText = host;
  // An IPv6 literal needs brackets before the port (net.JoinHostPort).
  if (hostText.find(':') != std::string::npos && !hostText.starts_with('[')) {
    hostText = "[" + hostText + "]";
  }
  RestConfig config;
  config.server = "https://" + hostText + ":" + port;
  config.bearerTokenFile = saDir + "/token";
  auto token = readLocalFile(config.bearerTokenFile);
  if (!token) {
    return core::fail(token.error().wrap("reading the service account token"));
  }
  config.bearerToken = trimSpace(*token);
  // client-go falls back to the system trust store here; a pod's API server is never signed by
  // a public CA, so a missing ca.crt would only fail later and less clearly.
  auto ca = readLocalFile(saDir + "/ca.crt");
  if (!ca) {
    return core::fail(ca.error().wrap("reading the service account CA"));
  }
  config.caPem = std::move(*ca);
  config.source = "in-cluster";
  return config;
}

}  // namespace nodewright::kube
