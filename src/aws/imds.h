#pragma once

#include <chrono>
#include <string>

#include "aws/credentials.h"
#include "aws/transport.h"
#include "core/clock.h"

// The EC2 instance metadata service, version 2 only: every read carries a session token from
// PUT /latest/api/token. IMDSv1 (tokenless GETs) is never used, so an instance that requires
// IMDSv2 (nodewright's launch templates do) behaves like any other.
// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-instance-metadata-service.html
namespace nodewright::aws {

inline constexpr const char* kDefaultImdsEndpoint = "http://169.254.169.254";

struct ImdsOptions {
  std::string endpoint = kDefaultImdsEndpoint;  // scheme://host[:port], no path
  // Short: off EC2 nothing answers, and the chain should move on quickly.
  std::chrono::milliseconds timeout{1000};
  int attempts = 2;  // one retry on no response or a 5xx
  std::chrono::seconds tokenTtl{21600};
};

// From AWS_EC2_METADATA_SERVICE_ENDPOINT; nullopt when AWS_EC2_METADATA_DISABLED is "true".
std::optional<ImdsOptions> imdsOptionsFromEnvironment(const EnvLookup& env);

// Thread-safe; `transport` must outlive it.
class ImdsClient {
 public:
  ImdsClient(ImdsOptions options, Transport& transport);

  // GET `path` ("/latest/meta-data/placement/region") with a fresh token. Errors:
  // kCredentialsNotFound when no metadata service answers at all (not on EC2), otherwise the
  // HTTP status as "ImdsError".
  ApiResult<std::string> get(const std::string& path);

 private:
  ApiResult<std::string> token();
  ApiResult<HttpResponse> send(HttpRequest request);

  const ImdsOptions options_;
  Transport& transport_;
};

// The instance's region, from /latest/meta-data/placement/region.
ApiResult<std::string> imdsRegion(ImdsClient& client);

// The instance role's credentials: /latest/meta-data/iam/security-credentials/ names the role,
// /<role> gives its keys as JSON. NotFound when IMDS is disabled, unreachable, or the instance
// has no role. Cached until 5 minutes before Expiration.
class ImdsCredentials final : public RefreshingCredentials {
 public:
  ImdsCredentials(ImdsOptions options, Transport& transport, const core::Clock& clock);
  // Disabled (every get() is NotFound) when `options` is nullopt.
  ImdsCredentials(std::optional<ImdsOptions> options, Transport& transport,
                  const core::Clock& clock);
  std::string name() const override { return "imds"; }

 protected:
  ApiResult<ExpiringCredentials> fetch() override;

 private:
  std::optional<ImdsClient> client_;
};

}  // namespace nodewright::aws
