#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/time.h"
#include "lro/operation.h"

// Bearer tokens for ARM, as the Azure SDKs' TokenCredential hands them out. Tokens, client
// secrets and federated assertions never appear in a log line or an error message.
namespace nodewright::cloud::azure {

// The scope of ARM in the public cloud; the emulator accepts it too.
inline constexpr const char* kArmScope = "https://management.azure.com/.default";
inline constexpr const char* kPublicAuthorityHost = "https://login.microsoftonline.com";

struct AccessToken {
  std::string token;
  core::TimePoint expiresOn;
};

// Acquires tokens. Thread-safe. Errors: Auth when the identity platform refused (its error
// code kept, e.g. "invalid_client"), Transient when it did not answer or failed (5xx),
// Throttled on 429, Invalid when the credential is misconfigured.
class TokenCredential {
 public:
  virtual ~TokenCredential() = default;
  // A token for `scope` ("https://management.azure.com/.default"), within `timeout`.
  virtual lro::CallResult<AccessToken> getToken(const std::string& scope,
                                                std::chrono::milliseconds timeout) = 0;
  // A short name for messages ("client-secret", "workload-identity", "managed-identity").
  virtual std::string name() const = 0;
};
using TokenCredentialPtr = std::unique_ptr<TokenCredential>;

struct TokenCacheOptions {
  // A token is refreshed this long before it expires, as the Azure SDKs do, so a request made
  // just before expiry does not reach ARM after it.
  std::chrono::milliseconds refreshBefore = std::chrono::minutes(5);
  // After a failed refresh, while the cached token still works, the next attempt waits this
  // long (MSAL's 30 s), so an outage of the token endpoint is not hammered.
  std::chrono::milliseconds retryFailedRefreshAfter = std::chrono::seconds(30);
};

// Caches another credential's tokens per scope on the injected clock. One refresh per scope at
// a time: while it runs, callers with a still-valid token get that token, callers without one
// wait for the refresh (within their timeout). A failed refresh while the cached token is
// unexpired returns the cached token. A source that throws fails that refresh only.
// Thread-safe; `clock` must outlive it.
class TokenCache final : public TokenCredential {
 public:
  TokenCache(TokenCredentialPtr source, const core::Clock& clock, TokenCacheOptions options = {});

  // azure::TokenCredential
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override;
  std::string name() const override { return source_->name(); }

 private:
  struct Entry {
    std::optional<AccessToken> token;
    bool refreshing = false;
    core::TimePoint nextAttempt{};  // no refresh before this after a failure
  };

  // source_->getToken within what is left until `deadline`; an exception it throws becomes
  // a Transient error (CredentialFailed), so it cannot unwind through the cache.
  lro::CallResult<AccessToken> fetchFromSource(const std::string& scope,
                                               std::chrono::steady_clock::time_point deadline);

  const TokenCredentialPtr source_;
  const core::Clock& clock_;
  const TokenCacheOptions options_;
  std::mutex mu_;
  std::condition_variable refreshed_;
  std::map<std::string, Entry, std::less<>> entries_;  // GUARDED_BY(mu_)
};

// A TokenCache around `source`.
TokenCredentialPtr cached(TokenCredentialPtr source, const core::Clock& clock,
                          TokenCacheOptions options = {});

// The ARM resource of a scope: "https://management.azure.com/.default" ->
// "https://management.azure.com" (what the managed identity endpoint takes).
std::string resourceOfScope(const std::string& scope);

}  // namespace nodewright::cloud::azure
