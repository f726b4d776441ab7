#include "cloud/azure/entra_credentials.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "cloud/azure/http_util.h"
#include "core/log.h"

namespace nodewright::cloud::azure {
namespace {

std::string scrub(std::string text, std::initializer_list<std::string_view> secrets) {
  for (std::string_view secret : secrets) {
    if (secret.empty()) {
      continue;
    }
    constexpr std::string_view kRedacted = "<redacted>";
    // The search resumes after the replacement: a secret found inside "<redacted>" ("e") would
    // otherwise be replaced forever.
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kRedacted.size())) {
      text.replace(at, secret.size(), kRedacted);
    }
  }
  return text;
}

std::optional<int64_t> numberField(const api::Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end()) {
    return std::nullopt;
  }
  if (it->is_number_integer()) {
    return it->get<int64_t>();
  }
  if (it->is_string()) {
    const std::string text = it->get<std::string>();
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && errno == 0 && end == text.c_str() + text.size()) {
      return value;
    }
  }
  return std::nullopt;
}

// Tenant ids are GUIDs or domain names; anything else would change the token URL's path.
bool validTenant(std::string_view tenant) {
  return !tenant.empty() && std::all_of(tenant.begin(), tenant.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.';
  });
}

std::string formBody(const std::vector<std::pair<std::string_view, std::string_view>>& fields) {
  std::string body;
  for (const auto& [name, value] : fields) {
    if (!body.empty()) {
      body += '&';
    }
    body += percentEncode(name) + "=" + percentEncode(value);
  }
  return body;
}

// POSTs a client credentials grant; `secrets` are the values to keep out of messages.
lro::CallResult<AccessToken> requestToken(
    const EntraOptions& options, const std::string& credentialName,
    const std::vector<std::pair<std::string_view, std::string_view>>& fields,
    std::initializer_list<std::string_view> secrets, Transport& transport, const core::Clock& clock,
    std::chrono::milliseconds timeout) {
  if (!validTenant(options.tenantId) || options.clientId.empty()) {
    return tl::unexpected(
        lro::callError(lro::CallError::Kind::Invalid, "InvalidCredential",
                       credentialName + ": a tenant id and a client id are required"));
  }
  std::string host = options.authorityHost;
  while (host.ends_with('/')) {
    host.pop_back();
  }
  // The grant carries the client secret or assertion: TLS only, as MSAL insists.
  const std::optional<std::string> origin = urlOrigin(host);
  if (!origin || !plainUrl(host) || !origin->starts_with("https://")) {
    return tl::unexpected(lro::callError(lro::CallError::Kind::Invalid, "InsecureAuthorityHost",
                                         credentialName + ": the authority host " + host +
                                             " is not an https URL; secrets are never sent over "
                                             "plain HTTP"));
  }
  HttpRequest request;
  request.method = "POST";
  request.url = host + "/" + options.tenantId + "/oauth2/v2.0/token";
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                     {"Accept", "application/json"}};
  request.body = formBody(fields);
  const std::string what = credentialName + " token from " + host;
  auto response = transport.send(request, timeout);
  if (!response) {
    return tl::unexpected(
        lro::callError(lro::CallError::Kind::Transient,
                       response.error().timedOut ? "RequestTimeout" : "TransportError",
                       what + ": " + scrub(response.error().message, secrets)));
  }
  core::logDebug("azure: token request",
                 {{"credential", credentialName}, {"status", response->status}});
  return parseTokenResponse(*response, what, clock.now(), secrets);
}

}  // namespace

EnvLookup processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') {
      return std::nullopt;
    }
    return std::string(value);
  };
}

lro::CallResult<AccessToken> parseTokenResponse(const HttpResponse& response, std::string_view what,
                                                core::TimePoint now,
                                                std::initializer_list<std::string_view> secrets) {
  using Kind = lro::CallError::Kind;
  const api::Json doc = api::Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (response.status != 200) {
    Kind kind = Kind::Auth;
    if (response.status == 429) {
      kind = Kind::Throttled;
    } else if (response.status == 408 || response.status >= 500) {
      kind = Kind::Transient;
    }
    std::string code;
    std::string description;
    if (doc.is_object()) {
      if (auto it = doc.find("error"); it != doc.end() && it->is_string()) {
        code = it->get<std::string>();
      }
      if (auto it = doc.find("error_description"); it != doc.end() && it->is_string()) {
        description = it->get<std::string>();
      }
    }
    auto error = lro::callError(
        kind, code,
        fmt::format("{}: HTTP {}{}{}", what, response.status, code.empty() ? "" : " " + code,
                    description.empty() ? "" : ": " + description));
    error.message = scrub(std::move(error.message), secrets);
    error.retryAfter = retryAfterFromHeaders(response.headers, now);
    return tl::unexpected(std::move(error));
  }
  auto token = doc.is_object() ? doc.find("access_token") : doc.end();
  if (!doc.is_object() || token == doc.end() || !token->is_string() ||
      token->get<std::string>().empty()) {
    return tl::unexpected(lro::callError(Kind::Auth, "InvalidTokenResponse",
                                         std::string(what) + ": no access_token in the response"));
  }
  AccessToken out;
  out.token = token->get<std::string>();
  if (auto expiresIn = numberField(doc, "expires_in"); expiresIn && *expiresIn > 0) {
    out.expiresOn = now + std::chrono::seconds(*expiresIn);
  } else if (auto expiresOn = numberField(doc, "expires_on"); expiresOn && *expiresOn > 0) {
    out.expiresOn = core::TimePoint(std::chrono::seconds(*expiresOn));
  } else {
    return tl::unexpected(lro::callError(Kind::Auth, "InvalidTokenResponse",
                                         std::string(what) + ": no expires_in in the response"));
  }
  return out;
}

ClientSecretCredential::ClientSecretCredential(EntraOptions options, std::string clientSecret,
                                               Transport& transport, const core::Clock& clock)
    : options_(std::move(options)),
      clientSecret_(std::move(clientSecret)),
      transport_(transport),
      clock_(clock) {}

lro::CallResult<std::unique_ptr<ClientSecretCredential>> ClientSecretCredential::fromEnvironment(
    const EnvLookup& env, Transport& transport, const core::Clock& clock) {
  EntraOptions options;
  std::vector<std::string> missing;
  auto read = [&](const char* name, std::string& into) {
    if (auto value = env(name)) {
      into = *value;
    } else {
      missing.emplace_back(name);
    }
  };
  std::string secret;
  read("AZURE_TENANT_ID", options.tenantId);
  read("AZURE_CLIENT_ID", options.clientId);
  read("AZURE_CLIENT_SECRET", secret);
  if (!missing.empty()) {
    return tl::unexpected(lro::callError(
        lro::CallError::Kind::Invalid, "CredentialUnavailable",
        fmt::format("client secret credential: {} not set", fmt::join(missing, ", "))));
  }
  if (auto host = env("AZURE_AUTHORITY_HOST")) {
    options.authorityHost = *host;
  }
  return std::make_unique<ClientSecretCredential>(std::move(options), std::move(secret), transport,
                                                  clock);
}

lro::CallResult<AccessToken> ClientSecretCredential::getToken(const std::string& scope,
                                                              std::chrono::milliseconds timeout) {
  if (clientSecret_.empty()) {
    return tl::unexpected(lro::callError(lro::CallError::Kind::Invalid, "InvalidCredential",
                                         "client-secret: the client secret is empty"));
  }
  return requestToken(options_, name(),
                      {{"grant_type", "client_credentials"},
                       {"client_id", options_.clientId},
                       {"scope", scope},
                       {"client_secret", clientSecret_}},
                      {clientSecret_}, transport_, clock_, timeout);
}

WorkloadIdentityCredential::WorkloadIdentityCredential(EntraOptions options, std::string tokenFile,
                                                       Transport& transport,
                                                       const core::Clock& clock)
    : options_(std::move(options)),
      tokenFile_(std::move(tokenFile)),
      transport_(transport),
      clock_(clock) {}

lro::CallResult<std::unique_ptr<WorkloadIdentityCredential>>
WorkloadIdentityCredential::fromEnvironment(const EnvLookup& env, Transport& transport,
                                            const core::Clock& clock) {
  EntraOptions options;
  std::string tokenFile;
  std::vector<std::string> missing;
  auto read = [&](const char* name, std::string& into) {
    if (auto value = env(name)) {
      into = *value;
    } else {
      missing.emplace_back(name);
    }
  };
  read("AZURE_TENANT_ID", options.tenantId);
  read("AZURE_CLIENT_ID", options.clientId);
  read("AZURE_FEDERATED_TOKEN_FILE", tokenFile);
  if (!missing.empty()) {
    return tl::unexpected(lro::callError(
        lro::CallError::Kind::Invalid, "CredentialUnavailable",
        fmt::format("workload identity credential: {} not set", fmt::join(missing, ", "))));
  }
  if (auto host = env("AZURE_AUTHORITY_HOST")) {
    options.authorityHost = *host;
  }
  return std::make_unique<WorkloadIdentityCredential>(std::move(options), std::move(tokenFile),
                                                      transport, clock);
}

lro::CallResult<AccessToken> WorkloadIdentityCredential::getToken(
    const std::string& scope, std::chrono::milliseconds timeout) {
  std::ifstream in(tokenFile_, std::ios::binary);
  std::stringstream content;
  if (in) {
    content << in.rdbuf();
  }
  if (!in) {
    const int reason = errno;
    return tl::unexpected(lro::callError(
        lro::CallError::Kind::Auth, "CredentialUnavailable",
        fmt::format("workload-identity: reading the federated token file {}: {}", tokenFile_,
                    reason != 0 ? std::strerror(reason) : "unreadable")));
  }
  std::string assertion = content.str();
  while (!assertion.empty() && std::isspace(static_cast<unsigned char>(assertion.back()))) {
    assertion.pop_back();
  }
  if (assertion.empty()) {
    return tl::unexpected(lro::callError(
        lro::CallError::Kind::Auth, "CredentialUnavailable",
        fmt::format("workload-identity: the federated token file {} is empty", tokenFile_)));
  }
  return requestToken(
      options_, name(),
      {{"grant_type", "client_credentials"},
       {"client_id", options_.clientId},
       {"scope", scope},
       {"client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
       {"client_assertion", assertion}},
      {assertion}, transport_, clock_, timeout);
}

}  // namespace nodewright::cloud::azure
