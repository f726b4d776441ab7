#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "emulators/arm/protocol.h"
#include "http/server.h"

// The emulated Microsoft Entra ID: issues access tokens and verifies them on every ARM request.
//   POST /{tenant}/oauth2/v2.0/token        client credentials with client_secret, or with a
//                                           client_assertion (federated workload identity or a
//                                           certificate), verified as Entra verifies them: RS256
//                                           with the key registered for the client, exp, nbf,
//                                           aud, iss and sub; no registered key, no token
//   GET  /metadata/identity/oauth2/token    the managed identity endpoint (IMDS shape)
//   GET  /{tenant}/v2.0/.well-known/openid-configuration
// Access tokens are JWTs signed HS256 with a key drawn at start, so a restarted emulator refuses
// the previous one's tokens (clients fetch new ones, as after a key rollover). Expiry follows
// the injected clock. Secrets, assertions and tokens are never logged. Thread-safe (immutable).
namespace nodewright::emulators::arm {

// A federated identity credential of an application (workload identity): an assertion that
// `issuer` issued for `subject` and `audience`, signed RS256 with the issuer's key. Entra fetches
// that key from the issuer's JWKS; the emulator is given it.
struct FederatedCredential {
  std::string issuer;
  std::string subject;
  std::string audience = "api://AzureADTokenExchange";
  std::string issuerKeyPem;  // the issuer's RSA public key ("PUBLIC KEY") or a certificate
};

struct IdentityOptions {
  std::string tenantId;
  // Client id -> secret; empty: any secret of any client is accepted.
  std::map<std::string, std::string, std::less<>> clientSecrets;
  // Client id -> its federated credentials.
  std::map<std::string, std::vector<FederatedCredential>, std::less<>> federatedCredentials;
  // Client id -> the certificate (PEM) registered on the application: it may authenticate with
  // an assertion it signs RS256 (header x5t#S256 or x5t naming the certificate, iss and sub the
  // client id, aud the token endpoint).
  std::map<std::string, std::string, std::less<>> clientCertificates;
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
  // The assertion of a certificate credential / a federated credential of `clientId`.
  std::optional<http::Response> checkCertificateAssertion(std::string_view clientId,
                                                          std::string_view assertion,
                                                          const api::Json& header,
                                                          const api::Json& claims) const;
  std::optional<http::Response> checkFederatedAssertion(std::string_view clientId,
                                                        std::string_view assertion,
                                                        const api::Json& claims) const;
  // exp and nbf against the injected clock.
  std::optional<http::Response> checkValidity(const api::Json& claims) const;
  http::Response entraError(int status, std::string_view error, int code,
                            std::string_view description) const;

  const core::Clock& clock_;
  const IdentityOptions options_;
  std::string key_;
};

// A stable object id for a client id (its service principal), shaped as a GUID.
std::string objectIdFor(std::string_view clientId);

}  // namespace nodewright::emulators::arm
