#include "cloud/azure/managed_identity.h"

#include <utility>

#include "cloud/azure/http_util.h"
#include "core/log.h"

namespace nodewright::cloud::azure {

ManagedIdentityCredential::ManagedIdentityCredential(ManagedIdentityOptions options,
                                                     Transport& transport, const core::Clock& clock)
    : options_(std::move(options)), transport_(transport), clock_(clock) {}

std::unique_ptr<ManagedIdentityCredential> ManagedIdentityCredential::fromEnvironment(
    const EnvLookup& env, Transport& transport, const core::Clock& clock) {
  ManagedIdentityOptions options;
  if (auto clientId = env("AZURE_CLIENT_ID")) {
    options.clientId = *clientId;
  }
  return std::make_unique<ManagedIdentityCredential>(std::move(options), transport, clock);
}

lro::CallResult<AccessToken> ManagedIdentityCredential::getToken(
    const std::string& scope, std::chrono::milliseconds timeout) {
  std::string endpoint = options_.endpoint;
  while (endpoint.ends_with('/')) {
    endpoint.pop_back();
  }
  HttpRequest request;
  request.method = "GET";
  request.url = endpoint + "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=" +
                percentEncode(resourceOfScope(scope));
  if (!options_.clientId.empty()) {
    request.url += "&client_id=" + percentEncode(options_.clientId);
  }
  request.headers = {{"Metadata", "true"}, {"Accept", "application/json"}};
  // IMDS listens on plain http (a link-local address, reachable from the VM only), and the
  // request carries no secret.
  request.allowPlainHttp = true;
  const std::string what = "managed-identity token from " + endpoint;
  auto response = transport_.send(request, timeout);
  if (!response) {
    // Off Azure nothing answers at all: the identity is unavailable here, retrying may help
    // only if the endpoint was briefly down.
    lro::CallError error;
    error.kind = lro::CallError::Kind::Transient;
    error.code = response.error().timedOut ? "RequestTimeout" : "CredentialUnavailable";
    error.message = what + ": " + response.error().message;
    return tl::unexpected(std::move(error));
  }
  core::logDebug("azure: token request", {{"credential", name()}, {"status", response->status}});
  // IMDS answers 404 and 410 while it is starting or updating: retryable, not a refusal.
  auto token = parseTokenResponse(*response, what, clock_.now(), {});
  if (!token && (response->status == 404 || response->status == 410)) {
    token.error().kind = lro::CallError::Kind::Transient;
  }
  return token;
}

}  // namespace nodewright::cloud::azure
