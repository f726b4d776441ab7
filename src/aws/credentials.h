#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/error.h"
#include "aws/sigv4.h"
#include "core/clock.h"
#include "core/time.h"

// Where AWS credentials come from, in the order every AWS SDK looks: environment variables,
// web identity from the environment, the shared config and credentials files, and the instance
// role through IMDSv2.
// https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html
//
// Secrets never appear in an error message: messages name variables, files, lines and URLs only.
namespace nodewright::aws {

// Looks up an environment variable. Injected everywhere so tests never read or change the
// process environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The real environment (getenv). Empty values count as unset, as in the AWS SDKs.
EnvLookup processEnvironment();
// A fixed environment, for tests and for tools that build one.
EnvLookup mapEnvironment(std::map<std::string, std::string> vars);

// The code of an error that means "this source is not configured here", on which a chain moves
// on to the next source. Any other code means the source is configured but failed.
inline constexpr const char* kCredentialsNotFound = "CredentialsNotFound";

inline bool isCredentialsNotFound(const ApiError& error) {
  return error.code == kCredentialsNotFound;
}

// Hands out credentials for signing. Thread-safe; get() may block on a network call when the
// cached credentials are due for refresh.
class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  virtual ApiResult<sigv4::Credentials> get() = 0;
  // A short name for messages ("environment", "imds").
  virtual std::string name() const = 0;
};
using CredentialsProviderPtr = std::unique_ptr<CredentialsProvider>;

// Credentials with the time they stop working; nullopt for long-term keys.
struct ExpiringCredentials {
  sigv4::Credentials credentials;
  std::optional<core::TimePoint> expiration;
};

// How long before Expiration refreshing providers fetch anew, as the AWS SDKs do, so a request
// signed just before expiry does not reach AWS after it.
inline constexpr std::chrono::minutes kRefreshBeforeExpiry{5};

// Caches what fetch() returns until kRefreshBeforeExpiry before its expiration. When a refresh
// fails while the cached credentials are still unexpired they are returned, so a brief STS or
// IMDS outage does not fail requests. Thread-safe: one fetch at a time.
class RefreshingCredentials : public CredentialsProvider {
 public:
  explicit RefreshingCredentials(const core::Clock& clock) : clock_(clock) {}
  ApiResult<sigv4::Credentials> get() final;

 protected:
  virtual ApiResult<ExpiringCredentials> fetch() = 0;
  const core::Clock& clock() const { return clock_; }

 private:
  const core::Clock& clock_;
  std::mutex mu_;
  std::optional<ExpiringCredentials> cached_;  // guarded by mu_
};

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and optionally AWS_SESSION_TOKEN. Read on every get()
// (cheap), NotFound when neither key is set, Invalid when only one of them is.
class EnvironmentCredentials final : public CredentialsProvider {
 public:
  explicit EnvironmentCredentials(EnvLookup env) : env_(std::move(env)) {}
  ApiResult<sigv4::Credentials> get() override;
  std::string name() const override { return "environment"; }

 private:
  EnvLookup env_;
};

// Tries each provider in order; the first that returns credentials wins and is asked directly
// from then on. A provider that is not configured (kCredentialsNotFound) is skipped; one that is
// configured but fails stops the chain, since falling through would silently use another
// identity. Either way the error lists what every provider tried said.
class ChainCredentials final : public CredentialsProvider {
 public:
  explicit ChainCredentials(std::vector<CredentialsProviderPtr> providers);
  ApiResult<sigv4::Credentials> get() override;
  std::string name() const override { return "chain"; }

 private:
  const std::vector<CredentialsProviderPtr> providers_;
  std::mutex mu_;
  CredentialsProvider* winner_ = nullptr;  // guarded by mu_; set once
};

class Transport;

// The AWS SDK's default chain: environment, web identity from the environment, the shared files
// (whose profile may itself use web identity), then IMDS. `transport` and `clock` must outlive
// the chain; `region` (possibly empty) picks the regional STS endpoint.
CredentialsProviderPtr makeDefaultCredentialsChain(EnvLookup env, Transport& transport,
                                                   const core::Clock& clock, std::string region);

}  // namespace nodewright::aws
