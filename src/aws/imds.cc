#include "aws/imds.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "aws/endpoints.h"

namespace nodewright::aws {
namespace {

constexpr const char* kTokenPath = "/latest/api/token";
constexpr const char* kCredentialsPath = "/latest/meta-data/iam/security-credentials/";

ApiError imdsError(const std::string& what, const HttpResponse& response) {
  return ApiError{"ImdsError", what + ": HTTP " + std::to_string(response.status), response.status};
}

}  // namespace

std::optional<ImdsOptions> imdsOptionsFromEnvironment(const EnvLookup& env) {
  if (auto disabled = env("AWS_EC2_METADATA_DISABLED")) {
    std::string lower;
    for (char c : *disabled) {
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (lower == "true") {
      return std::nullopt;
    }
  }
  ImdsOptions options;
  if (auto endpoint = env("AWS_EC2_METADATA_SERVICE_ENDPOINT")) {
    options.endpoint = *endpoint;
  }
  return options;
}

namespace {

ImdsOptions withoutTrailingSlash(ImdsOptions options) {
  while (!options.endpoint.empty() && options.endpoint.back() == '/') {
    options.endpoint.pop_back();
  }
  return options;
}

}  // namespace

ImdsClient::ImdsClient(ImdsOptions options, Transport& transport)
    : options_(withoutTrailingSlash(std::move(options))), transport_(transport) {}

ApiResult<HttpResponse> ImdsClient::send(HttpRequest request) {
  ApiResult<HttpResponse> response = apiFail(kTransportError, "not sent", 0);
  for (int attempt = 0; attempt < std::max(1, options_.attempts); ++attempt) {
    response = transport_.send(request, options_.timeout);
    if (response && response->status < 500) {
      return response;
    }
  }
  if (!response) {
    // Nothing answers: not on EC2 (or IMDS is firewalled), which is "not configured".
    return apiFail(
        kCredentialsNotFound,
        "no instance metadata service at " + options_.endpoint + " (" + response.error().code + ")",
        0);
  }
  return response;
}

ApiResult<std::string> ImdsClient::token() {
  HttpRequest request;
  request.method = "PUT";
  request.url = options_.endpoint + kTokenPath;
  request.headers.emplace("X-aws-ec2-metadata-token-ttl-seconds",
                          std::to_string(options_.tokenTtl.count()));
  auto response = send(std::move(request));
  if (!response) {
    return tl::unexpected(response.error());
  }
  if (response->status != 200 || response->body.empty()) {
    // No fallback to IMDSv1: a 403 here means IMDS is turned off for this instance.
    return tl::unexpected(imdsError("IMDSv2 session token", *response));
  }
  return response->body;
}

ApiResult<std::string> ImdsClient::get(const std::string& path) {
  auto session = token();
  if (!session) {
    return tl::unexpected(session.error());
  }
  HttpRequest request;
  request.method = "GET";
  request.url = options_.endpoint + path;
  request.headers.emplace("X-aws-ec2-metadata-token", *session);
  auto response = send(std::move(request));
  if (!response) {
    return tl::unexpected(response.error());
  }
  if (response->status != 200) {
    return tl::unexpected(imdsError("GET " + path, *response));
  }
  return response->body;
}

ApiResult<std::string> imdsRegion(ImdsClient& client) {
  auto region = client.get("/latest/meta-data/placement/region");
  if (region) {
    while (!region->empty() && std::isspace(static_cast<unsigned char>(region->back()))) {
      region->pop_back();
    }
  }
  return region;
}

ImdsCredentials::ImdsCredentials(ImdsOptions options, Transport& transport,
                                 const core::Clock& clock)
    : RefreshingCredentials(clock), client_(std::in_place, std::move(options), transport) {}

ImdsCredentials::ImdsCredentials(std::optional<ImdsOptions> options, Transport& transport,
                                 const core::Clock& clock)
    : RefreshingCredentials(clock) {
  if (options) {
    client_.emplace(std::move(*options), transport);
  }
}

ApiResult<ExpiringCredentials> ImdsCredentials::fetch() {
  if (!client_) {
    return apiFail(kCredentialsNotFound, "disabled by AWS_EC2_METADATA_DISABLED", 0);
  }
  auto roles = client_->get(kCredentialsPath);
  if (!roles) {
    if (roles.error().httpStatus == 404) {
      return apiFail(kCredentialsNotFound, "the instance has no IAM role", 0);
    }
    return tl::unexpected(roles.error());
  }
  std::string role = roles->substr(0, roles->find('\n'));
  while (!role.empty() && std::isspace(static_cast<unsigned char>(role.back()))) {
    role.pop_back();
  }
  if (role.empty()) {
    return apiFail(kCredentialsNotFound, "the instance has no IAM role", 0);
  }
  auto document = client_->get(kCredentialsPath + role);
  if (!document) {
    return tl::unexpected(document.error());
  }
  // Never quote the document in an error: it holds the secret key.
  auto json = nlohmann::json::parse(*document, nullptr, /*allow_exceptions=*/false);
  auto field = [&](const char* name) -> std::string {
    if (!json.is_object() || !json.contains(name) || !json[name].is_string()) {
      return "";
    }
    return json[name].get<std::string>();
  };
  if (json.is_discarded() || !json.is_object()) {
    return apiFail("ImdsError", "role credentials of " + role + " are not a JSON object", 0);
  }
  if (std::string code = field("Code"); !code.empty() && code != "Success") {
    return apiFail("ImdsError", "role credentials of " + role + " have Code " + code, 0);
  }
  ExpiringCredentials result;
  result.credentials = {field("AccessKeyId"), field("SecretAccessKey"), field("Token")};
  if (result.credentials.accessKeyId.empty() || result.credentials.secretAccessKey.empty()) {
    return apiFail("ImdsError",
                   "role credentials of " + role + " lack AccessKeyId or SecretAccessKey", 0);
  }
  auto expiration = core::Time::parse(field("Expiration"));
  if (!expiration) {
    return apiFail("ImdsError", "role credentials of " + role + " have no valid Expiration", 0);
  }
  result.expiration = expiration->point();
  return result;
}

}  // namespace nodewright::aws
