#pragma once

#include <string>

#include "cloud/azure/credentials.h"
#include "cloud/azure/entra_credentials.h"
#include "cloud/azure/transport.h"
#include "core/clock.h"

// The Azure Instance Metadata Service's managed identity endpoint:
// GET {endpoint}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=…
// with "Metadata: true", which IMDS requires (it refuses requests a proxy could forge).
// https://learn.microsoft.com/entra/identity/managed-identities-azure-resources/how-to-use-vm-token
namespace nodewright::cloud::azure {

inline constexpr const char* kImdsEndpoint = "http://169.254.169.254";

struct ManagedIdentityOptions {
  std::string endpoint = kImdsEndpoint;  // scheme://host[:port], no path
  // A user-assigned identity's client id; empty: the system-assigned identity.
  std::string clientId;
};

// Uncached: wrap it in a TokenCache (cached()). Thread-safe; `transport` and `clock` must
// outlive it.
class ManagedIdentityCredential final : public TokenCredential {
 public:
  ManagedIdentityCredential(ManagedIdentityOptions options, Transport& transport,
                            const core::Clock& clock);
  // The client id from AZURE_CLIENT_ID when set (as the Azure SDKs' DefaultAzureCredential
  // does), the default endpoint otherwise.
  static std::unique_ptr<ManagedIdentityCredential> fromEnvironment(const EnvLookup& env,
                                                                    Transport& transport,
                                                                    const core::Clock& clock);

  // azure::TokenCredential
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override;
  std::string name() const override { return "managed-identity"; }

 private:
  const ManagedIdentityOptions options_;
  Transport& transport_;
  const core::Clock& clock_;
};

}  // namespace nodewright::cloud::azure
