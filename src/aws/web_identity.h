#pragma once

#include <optional>
#include <string>

#include "aws/credentials.h"
#include "aws/transport.h"
#include "core/clock.h"

// Web identity: an OIDC token from a file exchanged for role credentials with STS
// AssumeRoleWithWebIdentity, the way IRSA and EKS Pod Identity hand roles to pods.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html
namespace nodewright::aws {

struct WebIdentityOptions {
  std::string roleArn;
  std::string tokenFile;
  std::string sessionName;  // empty: "nodewright-<unix seconds>"
  std::string stsEndpoint;  // absolute URL, e.g. https://sts.us-east-1.amazonaws.com
};

// Reads the token file anew on every refresh (kubelet rotates it) and POSTs the unsigned Query
// request (Version 2011-06-15). Caches until 5 minutes before Expiration. STS error codes and
// messages pass through (with the token scrubbed should STS ever echo it); no response is a
// TransportError/RequestTimeout. Thread-safe; `transport` and `clock` must outlive it.
class WebIdentityCredentials final : public RefreshingCredentials {
 public:
  WebIdentityCredentials(WebIdentityOptions options, Transport& transport,
                         const core::Clock& clock);
  std::string name() const override { return "web-identity"; }

  // From AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_SESSION_NAME, with the STS
  // endpoint resolved for `region`; NotFound unless both of the first two are set.
  static ApiResult<std::unique_ptr<WebIdentityCredentials>> fromEnvironment(
      const EnvLookup& env, Transport& transport, const core::Clock& clock,
      const std::string& region);

 protected:
  ApiResult<ExpiringCredentials> fetch() override;

 private:
  const WebIdentityOptions options_;
  Transport& transport_;
};

// The STS endpoint for `region` under the standard overrides (endpoints.h); the global
// https://sts.amazonaws.com when the region is empty.
ApiResult<std::string> stsEndpoint(const EnvLookup& env, const std::string& region);

// Parses an AssumeRoleWithWebIdentity (or AssumeRole) response body: its Credentials, or the
// ErrorResponse's Code and Message with `httpStatus`.
ApiResult<ExpiringCredentials> parseStsCredentials(std::string_view body, int httpStatus);

// A per-call provider for one source that wraps a lazily built WebIdentityCredentials, so the
// chain's "web identity from the environment" step costs nothing when it is not configured.
CredentialsProviderPtr makeEnvWebIdentityCredentials(EnvLookup env, Transport& transport,
                                                     const core::Clock& clock, std::string region);

}  // namespace nodewright::aws
