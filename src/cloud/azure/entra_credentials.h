#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "cloud/azure/credentials.h"
#include "cloud/azure/transport.h"
#include "core/clock.h"

// Client credentials grants against the Microsoft Entra token endpoint,
// POST {authorityHost}/{tenantId}/oauth2/v2.0/token:
// https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow
// Both are uncached: wrap them in a TokenCache (cached()).
namespace nodewright::cloud::azure {

// Looks up an environment variable; injected so tests never touch the process environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
// getenv, with empty values as unset (as the Azure SDKs read them).
EnvLookup processEnvironment();

struct EntraOptions {
  // AZURE_AUTHORITY_HOST; https only (an http one makes getToken Invalid, sending nothing).
  std::string authorityHost = kPublicAuthorityHost;
  std::string tenantId;  // AZURE_TENANT_ID
  std::string clientId;  // AZURE_CLIENT_ID
};

// A service principal with a client secret (AZURE_CLIENT_SECRET).
class ClientSecretCredential final : public TokenCredential {
 public:
  // `transport` and `clock` must outlive it.
  ClientSecretCredential(EntraOptions options, std::string clientSecret, Transport& transport,
                         const core::Clock& clock);
  // From AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and AZURE_AUTHORITY_HOST; Invalid
  // naming the missing variables.
  static lro::CallResult<std::unique_ptr<ClientSecretCredential>> fromEnvironment(
      const EnvLookup& env, Transport& transport, const core::Clock& clock);

  // azure::TokenCredential
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override;
  std::string name() const override { return "client-secret"; }

 private:
  const EntraOptions options_;
  const std::string clientSecret_;
  Transport& transport_;
  const core::Clock& clock_;
};

// Workload identity federation: the service account token kubelet projects into a file is the
// client assertion (jwt-bearer). The file is read anew on every acquisition, since kubelet
// rotates it.
class WorkloadIdentityCredential final : public TokenCredential {
 public:
  // `transport` and `clock` must outlive it.
  WorkloadIdentityCredential(EntraOptions options, std::string tokenFile, Transport& transport,
                             const core::Clock& clock);
  // From AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_FEDERATED_TOKEN_FILE and AZURE_AUTHORITY_HOST
  // (what the workload identity webhook injects); Invalid naming the missing variables.
  static lro::CallResult<std::unique_ptr<WorkloadIdentityCredential>> fromEnvironment(
      const EnvLookup& env, Transport& transport, const core::Clock& clock);

  // azure::TokenCredential
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override;
  std::string name() const override { return "workload-identity"; }

 private:
  const EntraOptions options_;
  const std::string tokenFile_;
  Transport& transport_;
  const core::Clock& clock_;
};

// Parses a token endpoint's answer (Entra or the managed identity endpoint): access_token with
// expires_in (seconds, number or string), else expires_on (Unix seconds), relative to `now`.
// A failure status becomes the CallError its error / error_description say, with `secrets`
// scrubbed from the description should the endpoint ever echo one.
lro::CallResult<AccessToken> parseTokenResponse(const HttpResponse& response, std::string_view what,
                                                core::TimePoint now,
                                                std::initializer_list<std::string_view> secrets);

}  // namespace nodewright::cloud::azure
