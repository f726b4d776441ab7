#include "cloud/azure/credentials.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cloud/azure/counting_clock.h"
#include "cloud/azure/entra_credentials.h"
#include "cloud/azure/managed_identity.h"

namespace nodewright::cloud::azure {
namespace {

using namespace std::chrono_literals;
using Kind = lro::CallError::Kind;

// Hands out numbered tokens valid for `lifetime`, or fails when told to; counts fetches.
class CountingCredential final : public TokenCredential {
 public:
  CountingCredential(const core::Clock& clock, std::chrono::seconds lifetime)
      : clock_(clock), lifetime_(lifetime) {}

  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds) override {
    const int n = ++fetches;
    if (fail) {
      lro::CallError error;
      error.kind = Kind::Transient;
      error.message = "endpoint down";
      return tl::unexpected(error);
    }
    if (gate != nullptr) {
      while (!gate->load()) {
        std::this_thread::yield();
      }
    }
    AccessToken token;
    token.token = scope + "#" + std::to_string(n);
    token.expiresOn = clock_.now() + lifetime_;
    return token;
  }
  std::string name() const override { return "counting"; }

  std::atomic<int> fetches{0};
  std::atomic<bool> fail{false};
  std::atomic<bool>* gate = nullptr;  // when set, fetches block until it is true

 private:
  const core::Clock& clock_;
  const std::chrono::seconds lifetime_;
};

class TokenCacheTest : public testing::Test {
 protected:
  TokenCacheTest() {
    auto source = std::make_unique<CountingCredential>(clock_, std::chrono::seconds(3600));
    source_ = source.get();
    cache_ = std::make_unique<TokenCache>(std::move(source), clock_);
  }

  std::string token(const std::string& scope = "arm") {
    auto t = cache_->getToken(scope, 1s);
    return t ? t->token : "error: " + t.error().message;
  }

  core::FakeClock clock_;
  CountingCredential* source_;
  std::unique_ptr<TokenCache> cache_;
};

TEST_F(TokenCacheTest, ReusesATokenUntilFiveMinutesBeforeExpiry) {
  EXPECT_EQ(token(), "arm#1");
  clock_.advance(std::chrono::minutes(54));
  EXPECT_EQ(token(), "arm#1");
  clock_.advance(std::chrono::minutes(1) + 1us);  // 4m59s left
  EXPECT_EQ(token(), "arm#2");
  EXPECT_EQ(source_->fetches, 2);
}

TEST_F(TokenCacheTest, CachesPerScope) {
  EXPECT_EQ(token("a"), "a#1");
  EXPECT_EQ(token("b"), "b#2");
  EXPECT_EQ(token("a"), "a#1");
}

TEST_F(TokenCacheTest, FailedRefreshKeepsTheValidTokenAndBacksOff) {
  EXPECT_EQ(token(), "arm#1");
  clock_.advance(std::chrono::minutes(56));
  source_->fail = true;
  EXPECT_EQ(token(), "arm#1");
  EXPECT_EQ(source_->fetches, 2);
  clock_.advance(10s);
  EXPECT_EQ(token(), "arm#1");
  EXPECT_EQ(source_->fetches, 2) << "retried within 30 s of a failed refresh";
  clock_.advance(21s);
  source_->fail = false;
  EXPECT_EQ(token(), "arm#3");
}

TEST_F(TokenCacheTest, FailedFetchWithoutAValidTokenIsTheError) {
  source_->fail = true;
  auto t = cache_->getToken("arm", 1s);
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().kind, Kind::Transient);
  source_->fail = false;
  EXPECT_EQ(token(), "arm#2") << "no back-off when there is nothing to fall back on";
}

TEST_F(TokenCacheTest, ExpiredTokenIsNeverReturned) {
  EXPECT_EQ(token(), "arm#1");
  clock_.advance(std::chrono::hours(2));
  source_->fail = true;
  EXPECT_FALSE(cache_->getToken("arm", 1s).has_value());
}

TEST_F(TokenCacheTest, ConcurrentCallersShareOneRefresh) {
  // The cache waits on a clock that sees its waiters: the first fetch is held until the seven
  // other callers are blocked waiting for it, so a cache that fetched for each would be caught.
  clocktest::CountingClock counting(clock_);
  auto source = std::make_unique<CountingCredential>(clock_, std::chrono::seconds(3600));
  CountingCredential& fetcher = *source;
  TokenCache cache(std::move(source), counting);
  std::atomic<bool> open{false};
  fetcher.gate = &open;
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] {
      auto t = cache.getToken("arm", 60s);
      got[i] = t ? t->token : t.error().message;
    });
  }
  EXPECT_TRUE(counting.awaitWaiters(got.size() - 1, 30s))
      << "the callers did not all wait for the one refresh";
  open = true;
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(fetcher.fetches, 1);
  for (const auto& g : got) {
    EXPECT_EQ(g, "arm#1");
  }
}

// Throws from getToken until told not to.
class ThrowingCredential final : public TokenCredential {
 public:
  explicit ThrowingCredential(const core::Clock& clock) : clock_(clock) {}
  lro::CallResult<AccessToken> getToken(const std::string&, std::chrono::milliseconds) override {
    if (throwing) {
      throw std::runtime_error("token file vanished");
    }
    AccessToken token;
    token.token = "t";
    token.expiresOn = clock_.now() + std::chrono::hours(1);
    return token;
  }
  std::string name() const override { return "throwing"; }
  bool throwing = true;

 private:
  const core::Clock& clock_;
};

TEST_F(TokenCacheTest, SourceThatThrowsFailsOneRefreshAndDoesNotLockTheCache) {
  auto source = std::make_unique<ThrowingCredential>(clock_);
  ThrowingCredential& thrower = *source;
  TokenCache cache(std::move(source), clock_);
  auto failed = cache.getToken("arm", 1s);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().kind, Kind::Transient);
  EXPECT_EQ(failed.error().code, "CredentialFailed");
  EXPECT_EQ(failed.error().message, "acquiring a throwing token: token file vanished");
  thrower.throwing = false;
  auto token = cache.getToken("arm", 1s);
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(token->token, "t");
}

// Token responses ------------------------------------------------------------------------------

const core::TimePoint kNow{std::chrono::seconds(1700000000)};

HttpResponse tokenResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(TokenResponseTest, ReadsExpiresInAsNumberOrString) {
  auto a = parseTokenResponse(
      tokenResponse(200, R"({"token_type":"Bearer","expires_in":3599,"access_token":"t1"})"), "x",
      kNow, {});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->token, "t1");
  EXPECT_EQ(a->expiresOn, kNow + 3599s);
  auto b = parseTokenResponse(
      tokenResponse(200, R"({"access_token":"t2","expires_in":"60","expires_on":"1"})"), "x", kNow,
      {});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->expiresOn, kNow + 60s);
}

TEST(TokenResponseTest, FallsBackToExpiresOn) {
  auto t = parseTokenResponse(
      tokenResponse(200, R"({"access_token":"t","expires_on":"1700000600"})"), "x", kNow, {});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->expiresOn, kNow + 600s);
}

TEST(TokenResponseTest, RejectsResponsesWithoutTokenOrExpiry) {
  EXPECT_FALSE(parseTokenResponse(tokenResponse(200, R"({"expires_in":5})"), "x", kNow, {}));
  EXPECT_FALSE(parseTokenResponse(tokenResponse(200, R"({"access_token":"t"})"), "x", kNow, {}));
  EXPECT_FALSE(parseTokenResponse(tokenResponse(200, "<html>"), "x", kNow, {}));
}

TEST(TokenResponseTest, ErrorsKeepTheCodeAndScrubSecrets) {
  auto t = parseTokenResponse(
      tokenResponse(401, R"({"error":"invalid_client","error_description":)"
                         R"("AADSTS7000215: Invalid client secret provided: s3cret"})"),
      "client-secret token", kNow, {"s3cret"});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().kind, Kind::Auth);
  EXPECT_EQ(t.error().code, "invalid_client");
  EXPECT_EQ(t.error().message,
            "client-secret token: HTTP 401 invalid_client: AADSTS7000215: Invalid client secret "
            "provided: <redacted>");
  auto throttled = parseTokenResponse(tokenResponse(429, "{}"), "x", kNow, {});
  ASSERT_FALSE(throttled.has_value());
  EXPECT_EQ(throttled.error().kind, Kind::Throttled);
  auto down = parseTokenResponse(tokenResponse(503, ""), "x", kNow, {});
  ASSERT_FALSE(down.has_value());
  EXPECT_EQ(down.error().kind, Kind::Transient);
}

TEST(TokenResponseTest, SecretFoundInTheRedactionMarkerIsScrubbedOnce) {
  // "e" is in "<redacted>" itself: the scrubbing must move on past each replacement.
  auto t = parseTokenResponse(
      tokenResponse(401, R"({"error":"invalid_client","error_description":"bad e"})"), "x", kNow,
      {"e"});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message, "x: HTTP 401 invalid_cli<redacted>nt: bad <redacted>");
}

TEST(ResourceOfScopeTest, DropsDotDefault) {
  EXPECT_EQ(resourceOfScope(kArmScope), "https://management.azure.com");
  EXPECT_EQ(resourceOfScope("https://vault.azure.net"), "https://vault.azure.net");
}

TEST(CredentialEnvironmentTest, NamesWhatIsMissing) {
  auto env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "AZURE_TENANT_ID") {
      return "t";
    }
    return std::nullopt;
  };
  core::FakeClock clock;
  auto transport = makeCurlTransport();
  auto secret = ClientSecretCredential::fromEnvironment(env, *transport, clock);
  ASSERT_FALSE(secret.has_value());
  EXPECT_EQ(secret.error().message,
            "client secret credential: AZURE_CLIENT_ID, AZURE_CLIENT_SECRET not set");
  auto workload = WorkloadIdentityCredential::fromEnvironment(env, *transport, clock);
  ASSERT_FALSE(workload.has_value());
  EXPECT_EQ(workload.error().message,
            "workload identity credential: AZURE_CLIENT_ID, AZURE_FEDERATED_TOKEN_FILE not set");
}

TEST(WorkloadIdentityTest, MissingTokenFileIsAnAuthErrorNamingTheFile) {
  core::FakeClock clock;
  auto transport = makeCurlTransport();
  EntraOptions options;
  options.tenantId = "t";
  options.clientId = "c";
  WorkloadIdentityCredential credential(options, "/nonexistent/azure-token", *transport, clock);
  auto t = credential.getToken(kArmScope, 1s);
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().kind, Kind::Auth);
  EXPECT_EQ(t.error().message,
            "workload-identity: reading the federated token file /nonexistent/azure-token: No "
            "such file or directory");
}

TEST(ClientSecretTest, TenantThatWouldChangeThePathIsInvalid) {
  core::FakeClock clock;
  auto transport = makeCurlTransport();
  EntraOptions options;
  options.tenantId = "../evil";
  options.clientId = "c";
  ClientSecretCredential credential(options, "s", *transport, clock);
  auto t = credential.getToken(kArmScope, 1s);
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().kind, Kind::Invalid);
}

}  // namespace
}  // namespace nodewright::cloud::azure
