#include "aws/credentials.h"

#include <cstdlib>

#include "aws/imds.h"
#include "aws/shared_config.h"
#include "aws/web_identity.h"

namespace nodewright::aws {

EnvLookup processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') {
      return std::nullopt;
    }
    return std::string(value);
  };
}

EnvLookup mapEnvironment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end() || it->second.empty()) {
      return std::nullopt;
    }
    return it->second;
  };
}

ApiResult<sigv4::Credentials> RefreshingCredentials::get() {
  std::lock_guard lock(mu_);
  const core::TimePoint now = clock_.now();
  if (cached_ && (!cached_->expiration || now < *cached_->expiration - kRefreshBeforeExpiry)) {
    return cached_->credentials;
  }
  auto fetched = fetch();
  if (!fetched) {
    if (cached_ && cached_->expiration && now < *cached_->expiration) {
      return cached_->credentials;
    }
    return tl::unexpected(fetched.error());
  }
  cached_ = std::move(*fetched);
  return cached_->credentials;
}

ApiResult<sigv4::Credentials> EnvironmentCredentials::get() {
  auto id = env_("AWS_ACCESS_KEY_ID");
  auto secret = env_("AWS_SECRET_ACCESS_KEY");
  if (!id && !secret) {
    return apiFail(kCredentialsNotFound, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set",
                   0);
  }
  if (!id || !secret) {
    return apiFail("InvalidCredentials",
                   std::string(id ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID") +
                       " is not set but " + (id ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY") +
                       " is",
                   0);
  }
  return sigv4::Credentials{*id, *secret, env_("AWS_SESSION_TOKEN").value_or("")};
}

ChainCredentials::ChainCredentials(std::vector<CredentialsProviderPtr> providers)
    : providers_(std::move(providers)) {}

ApiResult<sigv4::Credentials> ChainCredentials::get() {
  CredentialsProvider* winner = nullptr;
  {
    std::lock_guard lock(mu_);
    winner = winner_;
  }
  if (winner != nullptr) {
    // Asked outside the lock: providers are thread-safe, and a refresh should not hold up
    // the chain.
    return winner->get();
  }
  std::lock_guard lock(mu_);
  if (winner_ != nullptr) {  // another thread found it meanwhile
    return winner_->get();
  }
  std::string said;
  for (const auto& provider : providers_) {
    auto got = provider->get();
    if (got) {
      winner_ = provider.get();
      return got;
    }
    said += (said.empty() ? "" : "; ") + provider->name() + ": " + got.error().message;
    if (!isCredentialsNotFound(got.error())) {
      return apiFail(got.error().code,
                     "credentials from " + provider->name() + " failed (" + said + ")",
                     got.error().httpStatus);
    }
  }
  return apiFail(kCredentialsNotFound, "no AWS credentials found (" + said + ")", 0);
}

CredentialsProviderPtr makeDefaultCredentialsChain(EnvLookup env, Transport& transport,
                                                   const core::Clock& clock, std::string region) {
  std::vector<CredentialsProviderPtr> providers;
  providers.push_back(std::make_unique<EnvironmentCredentials>(env));
  providers.push_back(makeEnvWebIdentityCredentials(env, transport, clock, region));
  providers.push_back(std::make_unique<SharedFileCredentials>(env, transport, clock, region));
  providers.push_back(
      std::make_unique<ImdsCredentials>(imdsOptionsFromEnvironment(env), transport, clock));
  return std::make_unique<ChainCredentials>(std::move(providers));
}

}  // namespace nodewright::aws
