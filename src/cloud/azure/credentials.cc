#include "cloud/azure/credentials.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace nodewright::cloud::azure {

TokenCache::TokenCache(TokenCredentialPtr source, const core::Clock& clock,
                       TokenCacheOptions options)
    : source_(std::move(source)), clock_(clock), options_(options) {}

lro::CallResult<AccessToken> TokenCache::getToken(const std::string& scope,
                                                  std::chrono::milliseconds timeout) {
  const auto deadline = clock_.steadyNow() + timeout;
  std::unique_lock lock(mu_);
  Entry& entry = entries_[scope];
  while (true) {
    const core::TimePoint now = clock_.now();
    const bool valid = entry.token && now < entry.token->expiresOn;
    const bool fresh = valid && now < entry.token->expiresOn - options_.refreshBefore;
    if (fresh || (valid && (entry.refreshing || now < entry.nextAttempt))) {
      return *entry.token;
    }
    if (!entry.refreshing) {
      break;
    }
    // Another caller is refreshing and there is no usable token: wait for its result.
    if (clock_.steadyNow() >= deadline) {
      lro::CallError error;
      error.kind = lro::CallError::Kind::Transient;
      error.code = "TokenTimeout";
      error.message = "waiting for a " + source_->name() + " token: timed out";
      return tl::unexpected(std::move(error));
    }
    clock_.waitUntil(lock, refreshed_, deadline);
  }
  entry.refreshing = true;
  lro::CallResult<AccessToken> fetched;
  {
    // However the fetch ends, the next caller may refresh and the waiters wake: a refresh left
    // marked running would lock the scope's cache for good.
    struct RefreshDone {
      std::unique_lock<std::mutex>& lock;
      Entry& entry;
      std::condition_variable& refreshed;
      ~RefreshDone() {
        if (!lock.owns_lock()) {
          lock.lock();
        }
        entry.refreshing = false;
        refreshed.notify_all();
      }
    } done{lock, entry, refreshed_};
    lock.unlock();
    fetched = fetchFromSource(scope, deadline);
  }
  if (fetched) {
    entry.token = *fetched;
    entry.nextAttempt = {};
    return fetched;
  }
  const core::TimePoint now = clock_.now();
  entry.nextAttempt =
      now + std::chrono::duration_cast<std::chrono::microseconds>(options_.retryFailedRefreshAfter);
  if (entry.token && now < entry.token->expiresOn) {
    return *entry.token;
  }
  return fetched;
}

lro::CallResult<AccessToken> TokenCache::fetchFromSource(
    const std::string& scope, std::chrono::steady_clock::time_point deadline) {
  const auto remaining =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_.steadyNow());
  lro::CallError error;
  error.kind = lro::CallError::Kind::Transient;
  error.code = "CredentialFailed";
  try {
    return source_->getToken(scope, std::max(remaining, std::chrono::milliseconds(1)));
  } catch (const std::exception& e) {
    error.message = "acquiring a " + source_->name() + " token: " + e.what();
  } catch (...) {
    error.message = "acquiring a " + source_->name() + " token: an unknown exception";
  }
  return tl::unexpected(std::move(error));
}

TokenCredentialPtr cached(TokenCredentialPtr source, const core::Clock& clock,
                          TokenCacheOptions options) {
  return std::make_unique<TokenCache>(std::move(source), clock, options);
}

std::string resourceOfScope(const std::string& scope) {
  constexpr std::string_view kSuffix = "/.default";
  if (scope.ends_with(kSuffix)) {
    return scope.substr(0, scope.size() - kSuffix.size());
  }
  return scope;
}

}  // namespace nodewright::cloud::azure
