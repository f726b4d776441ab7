#include "aws/web_identity.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <pugixml.hpp>

#include "aws/endpoints.h"
#include "aws/query.h"

namespace nodewright::aws {
namespace {

constexpr std::chrono::milliseconds kStsTimeout{10000};

std::string childText(pugi::xml_node node, const char* name) {
  return node.child(name).text().as_string();
}

// STS does not echo tokens today; this keeps it so should a message ever quote one.
std::string scrub(std::string message, const std::string& secret) {
  if (secret.size() < 4) {
    return message;
  }
  for (size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at)) {
    message.replace(at, secret.size(), "<redacted>");
  }
  return message;
}

ApiResult<std::string> readToken(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return apiFail("InvalidWebIdentityToken",
                   "reading web identity token file " + path + ": " + std::strerror(errno), 0);
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) {
    return apiFail("InvalidWebIdentityToken", "web identity token file " + path + " is empty", 0);
  }
  return token;
}

}  // namespace

ApiResult<std::string> stsEndpoint(const EnvLookup& env, const std::string& region) {
  auto url =
      resolveEndpoint("sts", region.empty() ? "us-east-1" : region, std::nullopt, env, nullptr);
  if (url && region.empty() && *url == defaultEndpoint("sts", "us-east-1")) {
    return std::string("https://sts.amazonaws.com");
  }
  return url;
}

ApiResult<ExpiringCredentials> parseStsCredentials(std::string_view body, int httpStatus) {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) {
    return apiFail("InvalidStsResponse",
                   "STS answered HTTP " + std::to_string(httpStatus) + " without an XML body",
                   httpStatus);
  }
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) == "ErrorResponse" || httpStatus >= 300) {
    pugi::xml_node error = root.child("Error");
    std::string code = childText(error, "Code");
    return apiFail(
        code.empty() ? "StsError" : code,
        "STS: " + childText(error, "Message") + " (HTTP " + std::to_string(httpStatus) + ")",
        httpStatus);
  }
  pugi::xml_node credentials;  // under <AssumeRoleWithWebIdentityResult>
  for (pugi::xml_node result : root.children()) {
    if ((credentials = result.child("Credentials"))) {
      break;
    }
  }
  if (!credentials) {
    return apiFail("InvalidStsResponse", "STS response has no Credentials", httpStatus);
  }
  ExpiringCredentials result;
  result.credentials.accessKeyId = childText(credentials, "AccessKeyId");
  result.credentials.secretAccessKey = childText(credentials, "SecretAccessKey");
  result.credentials.sessionToken = childText(credentials, "SessionToken");
  if (result.credentials.accessKeyId.empty() || result.credentials.secretAccessKey.empty()) {
    return apiFail("InvalidStsResponse", "STS Credentials lack AccessKeyId or SecretAccessKey",
                   httpStatus);
  }
  auto expiration = core::Time::parse(childText(credentials, "Expiration"));
  if (!expiration) {
    return apiFail("InvalidStsResponse", "STS Credentials have no valid Expiration", httpStatus);
  }
  result.expiration = expiration->point();
  return result;
}

WebIdentityCredentials::WebIdentityCredentials(WebIdentityOptions options, Transport& transport,
                                               const core::Clock& clock)
    : RefreshingCredentials(clock), options_(std::move(options)), transport_(transport) {}

ApiResult<std::unique_ptr<WebIdentityCredentials>> WebIdentityCredentials::fromEnvironment(
    const EnvLookup& env, Transport& transport, const core::Clock& clock,
    const std::string& region) {
  auto roleArn = env("AWS_ROLE_ARN");
  auto tokenFile = env("AWS_WEB_IDENTITY_TOKEN_FILE");
  if (!roleArn || !tokenFile) {
    return apiFail(kCredentialsNotFound,
                   "AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not both set", 0);
  }
  auto endpoint = stsEndpoint(env, region);
  if (!endpoint) {
    return tl::unexpected(endpoint.error());
  }
  return std::make_unique<WebIdentityCredentials>(
      WebIdentityOptions{*roleArn, *tokenFile, env("AWS_ROLE_SESSION_NAME").value_or(""),
                         *endpoint},
      transport, clock);
}

ApiResult<ExpiringCredentials> WebIdentityCredentials::fetch() {
  auto token = readToken(options_.tokenFile);
  if (!token) {
    return tl::unexpected(token.error());
  }
  std::string sessionName = options_.sessionName;
  if (sessionName.empty()) {
    sessionName = "nodewright-" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                     clock().now().time_since_epoch())
                                                     .count());
  }
  HttpRequest request;
  request.method = "POST";
  request.url = options_.stsEndpoint + "/";
  request.headers.emplace("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
  request.headers.emplace("Accept", "text/xml");
  request.body = encodeForm({{"Action", "AssumeRoleWithWebIdentity"},
                             {"Version", "2011-06-15"},
                             {"RoleArn", options_.roleArn},
                             {"RoleSessionName", sessionName},
                             {"WebIdentityToken", *token}});
  auto response = transport_.send(request, kStsTimeout);
  if (!response) {
    ApiError error = response.error();
    error.message = "STS AssumeRoleWithWebIdentity at " + options_.stsEndpoint + ": " +
                    scrub(error.message, *token);
    return tl::unexpected(error);
  }
  auto parsed = parseStsCredentials(response->body, response->status);
  if (!parsed) {
    ApiError error = parsed.error();
    error.message =
        "assuming " + options_.roleArn + " with web identity: " + scrub(error.message, *token);
    return tl::unexpected(error);
  }
  return parsed;
}

namespace {

class EnvWebIdentityCredentials final : public CredentialsProvider {
 public:
  EnvWebIdentityCredentials(EnvLookup env, Transport& transport, const core::Clock& clock,
                            std::string region)
      : env_(std::move(env)), transport_(transport), clock_(clock), region_(std::move(region)) {}

  ApiResult<sigv4::Credentials> get() override {
    std::lock_guard lock(mu_);
    if (!provider_) {
      auto made = WebIdentityCredentials::fromEnvironment(env_, transport_, clock_, region_);
      if (!made) {
        return tl::unexpected(made.error());
      }
      provider_ = std::move(*made);
    }
    return provider_->get();
  }
  std::string name() const override { return "web-identity"; }

 private:
  const EnvLookup env_;
  Transport& transport_;
  const core::Clock& clock_;
  const std::string region_;
  std::mutex mu_;
  std::unique_ptr<WebIdentityCredentials> provider_;  // guarded by mu_
};

}  // namespace

CredentialsProviderPtr makeEnvWebIdentityCredentials(EnvLookup env, Transport& transport,
                                                     const core::Clock& clock, std::string region) {
  return std::make_unique<EnvWebIdentityCredentials>(std::move(env), transport, clock,
                                                     std::move(region));
}

}  // namespace nodewright::aws
