#include "emulators/arm/identity.h"
#include "core/text.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "core/check.h"
#include "core/sha256.h"
#include "emulators/arm/jwt.h"
#include "emulators/arm/types.h"

namespace nodewright::emulators::arm {
namespace {

constexpr std::string_view kJwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
constexpr std::string_view kDefaultSuffix = "/.default";
// ARM accepts tokens this long past their expiry, for clock skew.
constexpr std::chrono::minutes kSkew{5};
// The audiences ARM accepts, as its InvalidAuthenticationTokenAudience message lists them.
constexpr std::string_view kArmAudiences[] = {
    "https://management.core.windows.net/", "https://management.core.windows.net",
    "https://management.azure.com/", "https://management.azure.com"};

int64_t epochSeconds(core::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string issuer(std::string_view tenant) {
  return fmt::format("https://sts.windows.net/{}/", tenant);
}

http::Response json(int status, const api::Json& body) {
  http::Response r;
  r.status = status;
  r.contentType = "application/json; charset=utf-8";
  r.body = api::dumpJson(body);
  r.headers.emplace_back("Cache-Control", "no-store, no-cache");
  r.headers.emplace_back("Pragma", "no-cache");
  return r;
}

std::string str(const std::map<std::string, std::string>& form, const std::string& name) {
  auto it = form.find(name);
  return it == form.end() ? std::string() : it->second;
}

bool sameSecret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool audienceMatches(const api::Json& aud, std::string_view expected) {
  if (aud.is_string()) {
    return aud.get_ref<const std::string&>() == expected;
  }
  if (aud.is_array()) {
    for (const api::Json& a : aud) {
      if (a.is_string() && a.get_ref<const std::string&>() == expected) {
        return true;
      }
    }
  }
  return false;
}

ArmError unauthorized(std::string code, std::string message) {
  ArmError e;
  e.status = 401;
  e.code = std::move(code);
  e.message = std::move(message);
  e.headers.emplace_back(
      "WWW-Authenticate",
      fmt::format("Bearer error=\"invalid_token\", error_description=\"{}\"", e.message));
  return e;
}

}  // namespace

std::string objectIdFor(std::string_view clientId) {
  const std::string h = core::sha256Hex("principal:" + std::string(clientId));
  return fmt::format("{}-{}-{}-{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4),
                     h.substr(16, 4), h.substr(20, 12));
}

Identity::Identity(const core::Clock& clock, IdentityOptions options)
    : clock_(clock), options_(std::move(options)), key_(32, '\0') {
  NW_CHECK(RAND_bytes(reinterpret_cast<unsigned char*>(key_.data()),
                      static_cast<int>(key_.size())) == 1);
}

std::string Identity::issue(std::string_view clientId, std::string_view audience,
                            std::chrono::seconds lifetime) const {
  const int64_t now = epochSeconds(clock_.now());
  const std::string oid = objectIdFor(clientId);
  api::Json claims = {{"aud", std::string(audience)},
                      {"iss", issuer(options_.tenantId)},
                      {"iat", now},
                      {"nbf", now},
                      {"exp", now + lifetime.count()},
                      {"appid", std::string(clientId)},
                      {"appidacr", "1"},
                      {"idtyp", "app"},
                      {"oid", oid},
                      {"sub", oid},
                      {"tid", options_.tenantId},
                      {"uti", newUuid()},
                      {"ver", "1.0"}};
  return sign(claims);
}

std::string Identity::sign(const api::Json& claims) const {
  return jwt::signHs256(claims, key_);
}

http::Response Identity::entraError(int status, std::string_view error, int code,
                                    std::string_view description) const {
  const std::string trace = newUuid();
  const std::string correlation = newUuid();
  const std::string timestamp = armTime(clock_.now());
  return json(status, {{"error", std::string(error)},
                       {"error_description",
                        fmt::format("AADSTS{}: {} Trace ID: {} Correlation ID: {} Timestamp: {}",
                                    code, description, trace, correlation, timestamp)},
                       {"error_codes", {code}},
                       {"timestamp", timestamp},
                       {"trace_id", trace},
                       {"correlation_id", correlation}});
}

http::Response Identity::token(const http::Request& request, std::string_view tenant) const {
  if (!core::equalsIgnoreCase(tenant, options_.tenantId)) {
    return entraError(400, "invalid_request", 90002,
                      fmt::format("Tenant '{}' not found. Check to make sure you have the "
                                  "correct tenant ID and are signing into the correct cloud.",
                                  tenant));
  }
  std::map<std::string, std::string> form;
  for (auto& [name, value] : parseForm(request.body)) {
    form.emplace(std::move(name), std::move(value));
  }
  for (const char* required : {"grant_type", "client_id", "scope"}) {
    if (str(form, required).empty()) {
      return entraError(
          400, "invalid_request", 900144,
          fmt::format("The request body must contain the following parameter: '{}'.", required));
    }
  }
  if (str(form, "grant_type") != "client_credentials") {
    return entraError(
        400, "unsupported_grant_type", 70003,
        fmt::format("The app requested an unsupported grant type '{}'.", str(form, "grant_type")));
  }
  const std::string scope = str(form, "scope");
  if (!scope.ends_with(kDefaultSuffix) || scope.find(' ') != std::string::npos) {
    return entraError(400, "invalid_scope", 1002012,
                      fmt::format("The provided value for scope {} is not valid. Client "
                                  "credential flows must have a scope value with /.default "
                                  "suffixed to the resource identifier (application ID URI).",
                                  scope));
  }
  if (auto refused = authenticateClient(form)) {
    return std::move(*refused);
  }
  std::string resource = scope.substr(0, scope.size() - kDefaultSuffix.size());
  if (!resource.ends_with('/')) {
    resource += '/';
  }
  const auto lifetime = options_.tokenLifetime.count();
  return json(200,
              {{"token_type", "Bearer"},
               {"expires_in", lifetime},
               {"ext_expires_in", lifetime},
               {"access_token", issue(str(form, "client_id"), resource, options_.tokenLifetime)}});
}

std::optional<http::Response> Identity::authenticateClient(
    const std::map<std::string, std::string>& form) const {
  const std::string clientId = str(form, "client_id");
  const std::string secret = str(form, "client_secret");
  const std::string assertion = str(form, "client_assertion");
  auto unknownClient = [&] {
    return entraError(400, "unauthorized_client", 700016,
                      fmt::format("Application with identifier '{}' was not found in the "
                                  "directory '{}'.",
                                  clientId, options_.tenantId));
  };
  if (!secret.empty()) {
    if (options_.clientSecrets.empty()) {
      return std::nullopt;
    }
    auto expected = options_.clientSecrets.find(clientId);
    if (expected == options_.clientSecrets.end()) {
      return unknownClient();
    }
    if (!sameSecret(secret, expected->second)) {
      return entraError(401, "invalid_client", 7000215,
                        fmt::format("Invalid client secret provided. Ensure the secret being "
                                    "sent in the request is the client secret value, not the "
                                    "client secret ID, for a secret added to app '{}'.",
                                    clientId));
    }
    return std::nullopt;
  }
  if (assertion.empty()) {
    return entraError(401, "invalid_client", 7000218,
                      "The request body must contain the following parameter: "
                      "'client_assertion' or 'client_secret'.");
  }
  if (str(form, "client_assertion_type") != kJwtBearer) {
    return entraError(400, "invalid_request", 50027,
                      fmt::format("client_assertion_type must be '{}'.", kJwtBearer));
  }
  auto decoded = jwt::decodeUnverified(assertion);
  if (!decoded) {
    return entraError(400, "invalid_client", 50027, "JWT token is invalid or malformed.");
  }
  auto alg = decoded->header.find("alg");
  if (alg == decoded->header.end() || !alg->is_string() || *alg != "RS256") {
    return entraError(400, "invalid_client", 5002738,
                      fmt::format("Invalid JWT token. '{}' is not a supported signature "
                                  "algorithm. Supported signing algorithms are: 'RS256'",
                                  alg == decoded->header.end() ? std::string()
                                  : alg->is_string()           ? alg->get<std::string>()
                                                               : api::dumpJson(*alg)));
  }
  // A certificate credential names its certificate in the header; a federated assertion is
  // matched to a credential by its claims.
  const bool names = decoded->header.contains("x5t#S256") || decoded->header.contains("x5t");
  if (names && options_.clientCertificates.contains(clientId)) {
    return checkCertificateAssertion(clientId, assertion, decoded->header, decoded->payload);
  }
  if (options_.federatedCredentials.contains(clientId)) {
    return checkFederatedAssertion(clientId, assertion, decoded->payload);
  }
  const bool registered =
      options_.clientSecrets.contains(clientId) || options_.clientCertificates.contains(clientId);
  const bool open = options_.clientSecrets.empty() && options_.federatedCredentials.empty() &&
                    options_.clientCertificates.empty();
  if (!registered && !open) {
    return unknownClient();
  }
  // No key to verify the assertion with: Entra refuses what it cannot check.
  return entraError(400, "invalid_client", 70021,
                    "No matching federated identity record found for presented assertion.");
}

std::optional<http::Response> Identity::checkCertificateAssertion(std::string_view clientId,
                                                                  std::string_view assertion,
                                                                  const api::Json& header,
                                                                  const api::Json& claims) const {
  const std::string& certificate = options_.clientCertificates.find(clientId)->second;
  const bool sha256 = header.contains("x5t#S256");
  const api::Json& named = header[sha256 ? "x5t#S256" : "x5t"];
  const std::optional<std::string> thumbprint = jwt::certificateThumbprint(certificate, sha256);
  if (!named.is_string() || !thumbprint || named.get_ref<const std::string&>() != *thumbprint) {
    return entraError(401, "invalid_client", 700027,
                      fmt::format("The certificate with identifier used to sign the client "
                                  "assertion is not registered on application. [Reason - The key "
                                  "was not found., Thumbprint of key used by client: '{}']",
                                  named.is_string() ? named.get<std::string>() : ""));
  }
  if (!jwt::verifyRs256(assertion, certificate)) {
    return entraError(401, "invalid_client", 700027,
                      "Client assertion failed signature validation.");
  }
  for (const char* claim : {"iss", "sub"}) {
    auto v = claims.find(claim);
    if (v == claims.end() || !v->is_string() || v->get_ref<const std::string&>() != clientId) {
      return entraError(400, "invalid_client", 700021,
                        "Client assertion application identifier doesn't match 'client_id' "
                        "parameter.");
    }
  }
  // The audience is this tenant's token endpoint (v2.0 or v1), on whichever host serves it.
  auto aud = claims.find("aud");
  const std::string audience =
      aud != claims.end() && aud->is_string() ? aud->get<std::string>() : "";
  const std::string v2 = fmt::format("/{}/oauth2/v2.0/token", options_.tenantId);
  const std::string v1 = fmt::format("/{}/oauth2/token", options_.tenantId);
  if (!audience.starts_with("https://") || !(audience.ends_with(v2) || audience.ends_with(v1))) {
    return entraError(400, "invalid_client", 50013,
                      fmt::format("Assertion audience claim does not match the required value. "
                                  "The audience in the assertion was '{}'.",
                                  audience));
  }
  return checkValidity(claims);
}

std::optional<http::Response> Identity::checkFederatedAssertion(std::string_view clientId,
                                                                std::string_view assertion,
                                                                const api::Json& claims) const {
  auto text = [&](const char* name) {
    auto v = claims.find(name);
    return v != claims.end() && v->is_string() ? v->get<std::string>() : std::string();
  };
  const std::string iss = text("iss");
  const std::string sub = text("sub");
  if (iss.empty() || sub.empty()) {
    return entraError(400, "invalid_client", 50027,
                      "JWT token is invalid or malformed: it needs 'iss' and 'sub' claims.");
  }
  const auto& credentials = options_.federatedCredentials.find(clientId)->second;
  std::vector<const FederatedCredential*> byIssuer;
  for (const FederatedCredential& c : credentials) {
    if (c.issuer == iss) {
      byIssuer.push_back(&c);
    }
  }
  if (byIssuer.empty()) {
    return entraError(400, "invalid_client", 700211,
                      fmt::format("No matching federated identity record found for presented "
                                  "assertion issuer '{}'.",
                                  iss));
  }
  const FederatedCredential* match = nullptr;
  for (const FederatedCredential* c : byIssuer) {
    if (c->subject == sub) {
      match = c;
      break;
    }
  }
  if (match == nullptr) {
    return entraError(400, "invalid_client", 700213,
                      fmt::format("No matching federated identity record found for presented "
                                  "assertion subject '{}'.",
                                  sub));
  }
  auto aud = claims.find("aud");
  if (aud == claims.end() || !audienceMatches(*aud, match->audience)) {
    return entraError(400, "invalid_client", 700212,
                      fmt::format("No matching federated identity record found for presented "
                                  "assertion audience '{}'.",
                                  aud == claims.end() ? "" : api::dumpJson(*aud)));
  }
  if (!jwt::verifyRs256(assertion, match->issuerKeyPem)) {
    return entraError(401, "invalid_client", 700027,
                      "Client assertion failed signature validation.");
  }
  return checkValidity(claims);
}

std::optional<http::Response> Identity::checkValidity(const api::Json& claims) const {
  const int64_t now = epochSeconds(clock_.now());
  auto exp = claims.find("exp");
  auto nbf = claims.find("nbf");
  const bool expired =
      exp == claims.end() || !exp->is_number() || exp->get<double>() <= static_cast<double>(now);
  // A little skew is allowed on nbf, as on access tokens: the signer's clock may run ahead.
  const bool early = nbf != claims.end() &&
                     (!nbf->is_number() ||
                      nbf->get<double>() > static_cast<double>(epochSeconds(clock_.now() + kSkew)));
  if (expired || early) {
    return entraError(400, "invalid_client", 700024,
                      "Client assertion is not within its valid time range.");
  }
  return std::nullopt;
}

http::Response Identity::managedIdentityToken(const http::Request& request) const {
  auto problem = [](std::string_view description) {
    return json(400, {{"error", "invalid_request"}, {"error_description", description}});
  };
  if (!core::equalsIgnoreCase(request.header("metadata"), "true")) {
    return problem("Required metadata header not specified");
  }
  if (request.param("api-version").empty()) {
    return problem("Required query variable 'api-version' is missing");
  }
  const std::string resource = request.param("resource");
  if (resource.empty()) {
    return problem("Required audience parameter not specified");
  }
  const std::string clientId =
      request.hasParam("client_id") ? request.param("client_id") : options_.managedIdentityClientId;
  // A VM gets tokens only for the identities assigned to it.
  if (!options_.managedIdentityClientId.empty() &&
      !core::equalsIgnoreCase(clientId, options_.managedIdentityClientId)) {
    return problem("Identity not found");
  }
  const auto lifetime = options_.managedIdentityTokenLifetime;
  const int64_t now = epochSeconds(clock_.now());
  // IMDS writes its numbers as strings.
  return json(200, {{"access_token", issue(clientId, resource, lifetime)},
                    {"client_id", clientId},
                    {"expires_in", std::to_string(lifetime.count())},
                    {"expires_on", std::to_string(now + lifetime.count())},
                    {"ext_expires_in", std::to_string(lifetime.count())},
                    {"not_before", std::to_string(now)},
                    {"resource", resource},
                    {"token_type", "Bearer"}});
}

http::Response Identity::openidConfiguration(std::string_view tenant,
                                             std::string_view baseUrl) const {
  const std::string authority = fmt::format("{}/{}", baseUrl, tenant);
  return json(200, {{"issuer", fmt::format("{}/v2.0", authority)},
                    {"token_endpoint", authority + "/oauth2/v2.0/token"},
                    {"authorization_endpoint", authority + "/oauth2/v2.0/authorize"},
                    {"jwks_uri", authority + "/discovery/v2.0/keys"},
                    {"token_endpoint_auth_methods_supported",
                     {"client_secret_post", "private_key_jwt", "client_secret_basic"}},
                    {"response_types_supported", {"code", "id_token", "token"}},
                    {"tenant_region_scope", "NA"}});
}

ArmResult<Principal> Identity::verify(const http::Request& request) const {
  const std::string header = request.header("authorization");
  if (header.empty()) {
    return tl::unexpected(unauthorized(
        "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing."));
  }
  if (header.size() < 7 ||
      !core::equalsIgnoreCase(std::string_view(header).substr(0, 7), "bearer ")) {
    return tl::unexpected(
        unauthorized("AuthenticationFailed",
                     "Authentication failed. The 'Authorization' header is provided in an "
                     "invalid format."));
  }
  auto claims = jwt::verifyHs256(std::string_view(header).substr(7), key_);
  auto invalid = [] {
    return tl::unexpected(
        unauthorized("InvalidAuthenticationToken", "The access token is invalid."));
  };
  if (!claims) {
    return invalid();
  }
  auto exp = claims->find("exp");
  auto appid = claims->find("appid");
  if (exp == claims->end() || !exp->is_number_integer() || appid == claims->end() ||
      !appid->is_string()) {
    return invalid();
  }
  const auto now = clock_.now();
  const int64_t expires = exp->get<int64_t>();
  if (epochSeconds(now - kSkew) >= expires) {
    return tl::unexpected(unauthorized(
        "ExpiredAuthenticationToken",
        fmt::format("The access token expiry UTC time '{}' is earlier than current UTC time "
                    "'{}'.",
                    armTime(std::chrono::system_clock::time_point(std::chrono::seconds(expires))),
                    armTime(now))));
  }
  auto aud = claims->find("aud");
  const std::string audience =
      aud != claims->end() && aud->is_string() ? aud->get<std::string>() : std::string();
  if (std::find(std::begin(kArmAudiences), std::end(kArmAudiences), audience) ==
      std::end(kArmAudiences)) {
    return tl::unexpected(unauthorized(
        "InvalidAuthenticationTokenAudience",
        fmt::format("The access token has been obtained for wrong audience or resource '{}'. It "
                    "should exactly match with one of the allowed audiences "
                    "'https://management.core.windows.net/','https://management.core.windows."
                    "net','https://management.azure.com/','https://management.azure.com'.",
                    audience)));
  }
  auto iss = claims->find("iss");
  auto tid = claims->find("tid");
  const std::string tokenIssuer =
      iss != claims->end() && iss->is_string() ? iss->get<std::string>() : std::string();
  if (tokenIssuer != issuer(options_.tenantId) || tid == claims->end() || !tid->is_string() ||
      !core::equalsIgnoreCase(tid->get_ref<const std::string&>(), options_.tenantId)) {
    return tl::unexpected(unauthorized(
        "InvalidAuthenticationTokenTenant",
        fmt::format("The access token is from the wrong issuer '{}'. It must match the tenant "
                    "'{}' associated with this subscription. Please use the authority (URL) "
                    "'https://login.windows.net/{}' to get the token.",
                    tokenIssuer, issuer(options_.tenantId), options_.tenantId)));
  }
  Principal p;
  p.clientId = appid->get<std::string>();
  p.objectId = objectIdFor(p.clientId);
  return p;
}

}  // namespace nodewright::emulators::arm
