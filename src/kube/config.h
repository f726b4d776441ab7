#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

// Where a client connects and how it proves who it is: kubeconfig files, in-cluster service
// accounts and exec credential plugins, as client-go's rest.Config and clientcmd.
namespace nodewright::kube {

// users[].user.exec of a kubeconfig (client.authentication.k8s.io/v1 and v1beta1).
struct ExecConfig {
  std::string apiVersion;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string installHint;
  bool provideClusterInfo = false;
  std::string interactiveMode;  // Never / IfAvailable / Always; we never have a terminal
};

// A credential from an exec plugin (ExecCredential.status).
struct ExecCredential {
  std::string token;
  std::string clientCertificatePem;
  std::string clientKeyPem;
  // Absent: valid until the server rejects it.
  std::optional<std::chrono::system_clock::time_point> expiration;
};

struct RestConfig {
  std::string server;  // "https://127.0.0.1:6443", without a trailing slash
  std::string tlsServerName;
  std::string caPem;  // empty: the system trust store
  bool insecureSkipTlsVerify = false;
  std::string clientCertificatePem;
  std::string clientKeyPem;
  std::string bearerToken;
  // Re-read periodically (service-account tokens rotate); wins over bearerToken when set.
  std::string bearerTokenFile;
  std::optional<ExecConfig> exec;
  // Where the configuration came from, for messages ("kubeconfig /x context kind-a", "in-cluster").
  std::string source;

  // Client-side rate limit; qps <= 0 turns it off (controller-runtime's default since 0.15).
  double qps = 0;
  int burst = 0;
  // Per request, except watches (which use a server-side timeoutSeconds).
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  std::string userAgent = "nodewright";
};

struct KubeconfigOptions {
  std::string context;  // empty: current-context
};

// Parses a kubeconfig file. Relative file paths inside it resolve against its directory.
// Errors name the field path ("users[0].user.client-key: ...").
core::Result<RestConfig> loadKubeconfig(const std::string& path,
                                        const KubeconfigOptions& options = {});
core::Result<RestConfig> parseKubeconfig(const std::string& text, const std::string& directory,
                                         const KubeconfigOptions& options = {});

// Inside a pod: KUBERNETES_SERVICE_HOST/PORT and the service account's token and CA under
// `saDir` (/var/run/secrets/kubernetes.io/serviceaccount).
core::Result<RestConfig> inClusterConfig(
    const std::string& saDir = "/var/run/secrets/kubernetes.io/serviceaccount");

// client-go's order: the explicit file, else $KUBECONFIG (first existing entry), else
// in-cluster when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
core::Result<RestConfig> loadConfig(const std::string& explicitPath,
                                    const KubeconfigOptions& options = {});

// Runs the exec plugin once and parses its ExecCredential. `clusterServer`/`caPem` are passed
// in KUBERNETES_EXEC_INFO when provideClusterInfo is set. The plugin's stderr passes through;
// its stdout is never logged (it holds the credential).
core::Result<ExecCredential> runExecPlugin(const ExecConfig& exec, const RestConfig& cluster);

// What a request carries to authenticate: refreshed from files and plugins as needed.
class Credentials {
 public:
  virtual ~Credentials() = default;
  // The bearer token to send now (may be empty when a client certificate authenticates).
  virtual core::Result<std::string> token() = 0;
  // A client certificate from an exec plugin, if it returned one.
  virtual std::optional<std::pair<std::string, std::string>> clientCertificate() = 0;
  // The server answered 401: forget cached plugin credentials so the next token() runs it again.
  virtual void invalidate() = 0;
};

std::unique_ptr<Credentials> makeCredentials(const RestConfig& config);

}  // namespace nodewright::kube
