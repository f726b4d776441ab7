#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "emulators/arm/protocol.h"
#include "http/server.h"

// The emulated Microsoft Entra ID: issues access tokens and verifies them on every ARM request.
//   POST /{tenant}/oauth2/v2.0/token        client credentials with client_secret, or with a
//                                           client_assertion (federated workload identity)
//   GET  /metadata/identity/oauth2/token    the managed identity endpoint (IMDS shape)
//   GET  /{tenant}/v2.0/.well-known/openid-configuration
// Access tokens are JWTs signed HS256 with a key drawn at start, so a restarted emulator refuses
// the previous one's tokens (clients fetch new ones, as after a key rollover). Expiry follows
// the injected clock. Secrets, assertions and tokens are never logged. Thread-safe (immutable).
namespace nodewright::emulators::arm {

struct IdentityOptions {
  std::string tenantId;
  // Client id -> secret; empty: any secret of any client is accepted.
  std::map<std::string, std::string, std::less<>> clientSecrets;
  // Client id -> the subject its federated credential expects. When this and clientSecrets are
  // both empty, any well-formed assertion of any client is accepted; otherwise only the clients
  // listed here can present one.
  std::map<std::string, std::string, std::less<>> federatedSubjects;
  std::string assertionAudience = "api://AzureADTokenExchange";
  // The managed identity the IMDS endpoint serves; a request naming another client_id gets
  // "Identity not found". Empty: any client_id.
  std::string managedIdentityClientId = "00000000-0000-0000-0000-0000000000aa";
  std::chrono::seconds tokenLifetime{3599};
  std::chrono::seconds managedIdentityTokenLifetime{86399};
};

// Who sent an ARM request: the application (client) id and its service principal's object id.
struct Principal {
  std::string clientId;
  std::string objectId;
};

class Identity {
 public:
  Identity(const core::Clock& clock, IdentityOptions options);

  http::Response token(const http::Request& request, std::string_view tenant) const;
  http::Response managedIdentityToken(const http::Request& request) const;
  http::Response openidConfiguration(std::string_view tenant, std::string_view baseUrl) const;

  // The caller of a request from its Authorization: Bearer header; ARM's 401 errors otherwise:
  // AuthenticationFailed, InvalidAuthenticationToken, ExpiredAuthenticationToken, and
  // InvalidAuthenticationTokenAudience / InvalidAuthenticationTokenTenant for a token issued
  // for another resource (Key Vault) or by another tenant.
  ArmResult<Principal> verify(const http::Request& request) const;

  // An access token for `clientId` as the token endpoint would issue it (tests, benchmarks).
  std::string issue(std::string_view clientId, std::string_view audience,
                    std::chrono::seconds lifetime) const;
  // `claims` signed with this identity's key (tests of verify()).
  std::string sign(const api::Json& claims) const;
  const IdentityOptions& options() const { return options_; }

 private:
  // Checks the client's secret or assertion; an Entra error response when refused.
  std::optional<http::Response> authenticateClient(
      const std::map<std::string, std::string>& form) const;
  http::Response entraError(int status, std::string_view error, int code,
                            std::string_view description) const;

  const core::Clock& clock_;
  const IdentityOptions options_;
  std::string key_;
};

// A stable object id for a client id (its service principal), shaped as a GUID.
std::string objectIdFor(std::string_view clientId);

}  // namespace nodewright::emulators::arm
