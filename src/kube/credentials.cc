// Where a request's credentials come from, in client-go's order of precedence: a token file
// (re-read at most once a minute), a static token, then an exec plugin (run again when its
// credential nears expiry or the server rejected it).
#include "kube/credentials.h"

#include <mutex>
#include <optional>

#include "kube/exec_plugin.h"
#include "kube/local_file.h"

namespace nodewright::kube {
namespace {

class CredentialsImpl final : public Credentials {
 public:
  CredentialsImpl(const RestConfig& config, const core::Clock& clock, ExecRunner runExec)
      : config_(config), clock_(clock), runExec_(std::move(runExec)), token_(config.bearerToken) {}

  // kube::Credentials
  core::Result<std::string> token() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!config_.bearerTokenFile.empty()) {
      return fileToken();
    }
    if (!config_.bearerToken.empty() || !config_.exec) {
      return config_.bearerToken;
    }
    auto credential = execCredential();
    if (!credential) {
      return core::fail(credential.error());
    }
    return credential->token;
  }

  std::optional<std::pair<std::string, std::string>> clientCertificate() override {
    std::lock_guard<std::mutex> lock(mu_);
    // A token wins over the plugin (client-go's exec round tripper steps aside for one).
    if (!config_.bearerTokenFile.empty() || !config_.bearerToken.empty() || !config_.exec) {
      return std::nullopt;
    }
    auto credential = execCredential();
    if (!credential || credential->clientCertificatePem.empty()) {
      return std::nullopt;
    }
    return std::make_pair(credential->clientCertificatePem, credential->clientKeyPem);
  }

  void invalidate() override {
    std::lock_guard<std::mutex> lock(mu_);
    cached_.reset();
    // A rejected token may have been rotated on disk since the last read.
    nextRead_.reset();
  }

 private:
  // REQUIRES: mu_ held.
  core::Result<std::string> fileToken() {
    auto now = clock_.steadyNow();
    if (nextRead_ && now < *nextRead_) {
      return token_;
    }
    auto text = readLocalFile(config_.bearerTokenFile);
    if (!text) {
      // As client-go: keep serving the last good token while the file is briefly missing
      // (kubelet swaps projected tokens by rename), but retry on the next call.
      if (!token_.empty()) {
        return token_;
      }
      return core::fail(text.error().wrap("reading the bearer token file"));
    }
    token_ = trimSpace(*text);
    nextRead_ = now + kTokenFileRefresh;
    return token_;
  }

  // REQUIRES: mu_ held.
  core::Result<ExecCredential> execCredential() {
    auto now = clock_.now();
    if (cached_ && (!refreshAt_ || now < *refreshAt_)) {
      return *cached_;
    }
    auto credential = runExec_(*config_.exec, config_);
    if (!credential) {
      return core::fail(credential.error().wrap("getting credentials"));
    }
    cached_ = *credential;
    refreshAt_.reset();
    if (credential->expiration) {
      auto expiry =
          std::chrono::time_point_cast<core::TimePoint::duration>(*credential->expiration);
      // A credential that is already within the margin is used until it actually expires, so
      // a short-lived one does not run the plugin on every request.
      refreshAt_ = expiry - kExecRefreshMargin > now ? expiry - kExecRefreshMargin : expiry;
    }
    return *cached_;
  }

  const RestConfig config_;
  const core::Clock& clock_;
  const ExecRunner runExec_;

  std::mutex mu_;
  std::string token_;  // GUARDED_BY(mu_): the token file's last content
  std::optional<std::chrono::steady_clock::time_point> nextRead_;  // GUARDED_BY(mu_)
  std::optional<ExecCredential> cached_;                           // GUARDED_BY(mu_)
  std::optional<core::TimePoint> refreshAt_;                       // GUARDED_BY(mu_)
};

}  // namespace

std::unique_ptr<Credentials> makeCredentials(const RestConfig& config, const core::Clock& clock,
                                             ExecRunner runExec) {
  return std::make_unique<CredentialsImpl>(config, clock, std::move(runExec));
}

std::unique_ptr<Credentials> makeCredentials(const RestConfig& config) {
  return makeCredentials(config, core::systemClock(),
                         [](const ExecConfig& exec, const RestConfig& cluster) {
                           return runExecPlugin(exec, cluster);
                         });
}

}  // namespace nodewright::kube
