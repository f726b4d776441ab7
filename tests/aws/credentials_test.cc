#include "aws/credentials.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "aws/transport.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr const char* kToken = "FQoGZXIvYXdzEXAMPLESESSIONTOKEN";

// Answers every request with 500 and records the count: the chain must not reach it unless a
// test says so.
class CountingTransport final : public Transport {
 public:
  ApiResult<HttpResponse> send(const HttpRequest&, std::chrono::milliseconds) override {
    ++sent;
    return apiFail(kTransportError, "connection refused", 0);
  }
  std::atomic<int> sent{0};
};

class ScriptedRefresh final : public RefreshingCredentials {
 public:
  using RefreshingCredentials::RefreshingCredentials;
  std::string name() const override { return "scripted"; }
  std::vector<ApiResult<ExpiringCredentials>> answers;
  int fetches = 0;

 protected:
  ApiResult<ExpiringCredentials> fetch() override { return answers.at(fetches++); }
};

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "nw-creds-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file) << text;
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(EnvironmentCredentialsTest, ReadsKeysAndSessionToken) {
  EnvironmentCredentials provider(mapEnvironment({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                                                  {"AWS_SECRET_ACCESS_KEY", kSecret},
                                                  {"AWS_SESSION_TOKEN", kToken}}));
  auto got = provider.get();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->accessKeyId, "AKIDENV");
  EXPECT_EQ(got->secretAccessKey, kSecret);
  EXPECT_EQ(got->sessionToken, kToken);
}

TEST(EnvironmentCredentialsTest, NotFoundWhenUnsetAndInvalidWhenHalfSet) {
  auto none = EnvironmentCredentials(mapEnvironment({})).get();
  ASSERT_FALSE(none);
  EXPECT_TRUE(isCredentialsNotFound(none.error()));

  auto half = EnvironmentCredentials(mapEnvironment({{"AWS_SECRET_ACCESS_KEY", kSecret}})).get();
  ASSERT_FALSE(half);
  EXPECT_FALSE(isCredentialsNotFound(half.error()));
  EXPECT_NE(half.error().message.find("AWS_ACCESS_KEY_ID is not set"), std::string::npos);
  EXPECT_EQ(half.error().message.find(kSecret), std::string::npos);
}

TEST(EnvironmentCredentialsTest, EmptyValueCountsAsUnset) {
  auto got = EnvironmentCredentials(
                 mapEnvironment({{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}}))
                 .get();
  ASSERT_FALSE(got);
  EXPECT_TRUE(isCredentialsNotFound(got.error()));
}

TEST(RefreshingCredentialsTest, CachesUntilFiveMinutesBeforeExpiration) {
  core::FakeClock clock;
  ScriptedRefresh provider(clock);
  provider.answers.push_back(ExpiringCredentials{{"AKID1", "s1", "t1"}, clock.now() + 1h});
  provider.answers.push_back(ExpiringCredentials{{"AKID2", "s2", "t2"}, clock.now() + 2h});

  EXPECT_EQ(provider.get()->accessKeyId, "AKID1");
  clock.advance(54min);
  EXPECT_EQ(provider.get()->accessKeyId, "AKID1");
  EXPECT_EQ(provider.fetches, 1);
  clock.advance(1min + 1s);  // inside the last five minutes
  EXPECT_EQ(provider.get()->accessKeyId, "AKID2");
  EXPECT_EQ(provider.fetches, 2);
}

TEST(RefreshingCredentialsTest, KeepsUnexpiredCredentialsWhenRefreshFails) {
  core::FakeClock clock;
  ScriptedRefresh provider(clock);
  provider.answers.push_back(ExpiringCredentials{{"AKID1", "s1", ""}, clock.now() + 1h});
  provider.answers.push_back(apiFail("Throttling", "slow down"));
  provider.answers.push_back(apiFail("Throttling", "slow down"));

  ASSERT_TRUE(provider.get());
  clock.advance(57min);
  auto stale = provider.get();
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->accessKeyId, "AKID1");
  clock.advance(4min);  // expired now
  auto failed = provider.get();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "Throttling");
}

TEST(ChainCredentialsTest, EnvironmentWinsOverSharedFiles) {
  TempDir dir;
  std::string credentials = dir.write("credentials",
                                      "[default]\naws_access_key_id = AKIDFILE\n"
                                      "aws_secret_access_key = filesecret\n");
  CountingTransport transport;
  core::FakeClock clock;
  std::map<std::string, std::string> vars = {{"AWS_SHARED_CREDENTIALS_FILE", credentials},
                                             {"AWS_CONFIG_FILE", dir.path() + "/none"},
                                             {"AWS_EC2_METADATA_DISABLED", "true"}};
  auto fromFiles = makeDefaultCredentialsChain(mapEnvironment(vars), transport, clock, "");
  ASSERT_TRUE(fromFiles->get());
  EXPECT_EQ(fromFiles->get()->accessKeyId, "AKIDFILE");

  vars["AWS_ACCESS_KEY_ID"] = "AKIDENV";
  vars["AWS_SECRET_ACCESS_KEY"] = kSecret;
  auto fromEnv = makeDefaultCredentialsChain(mapEnvironment(vars), transport, clock, "");
  EXPECT_EQ(fromEnv->get()->accessKeyId, "AKIDENV");
  EXPECT_EQ(transport.sent, 0);
}

TEST(ChainCredentialsTest, FailureListsEverySourceWithoutSecrets) {
  TempDir dir;
  CountingTransport transport;
  core::FakeClock clock;
  auto chain = makeDefaultCredentialsChain(
      mapEnvironment({{"AWS_SHARED_CREDENTIALS_FILE", dir.path() + "/missing-credentials"},
                      {"AWS_CONFIG_FILE", dir.path() + "/missing-config"},
                      {"AWS_SESSION_TOKEN", kToken},
                      {"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9"}}),
      transport, clock, "us-east-1");
  auto got = chain->get();
  ASSERT_FALSE(got);
  EXPECT_TRUE(isCredentialsNotFound(got.error()));
  const std::string& message = got.error().message;
  // In the SDK's order.
  size_t env = message.find("environment: AWS_ACCESS_KEY_ID");
  size_t web = message.find("web-identity: AWS_ROLE_ARN");
  size_t files = message.find("shared-files: profile \"default\" not found");
  size_t imds = message.find("imds: no instance metadata service at http://127.0.0.1:9");
  ASSERT_NE(env, std::string::npos) << message;
  ASSERT_NE(web, std::string::npos) << message;
  ASSERT_NE(files, std::string::npos) << message;
  ASSERT_NE(imds, std::string::npos) << message;
  EXPECT_LT(env, web);
  EXPECT_LT(web, files);
  EXPECT_LT(files, imds);
  EXPECT_EQ(message.find(kToken), std::string::npos);
  // Token request plus its one retry.
  EXPECT_EQ(transport.sent, 2);
}

TEST(ChainCredentialsTest, DisabledImdsIsNeverContacted) {
  CountingTransport transport;
  core::FakeClock clock;
  auto chain =
      makeDefaultCredentialsChain(mapEnvironment({{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/c"},
                                                  {"AWS_CONFIG_FILE", "/nonexistent/f"},
                                                  {"AWS_EC2_METADATA_DISABLED", "TRUE"}}),
                                  transport, clock, "");
  auto got = chain->get();
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("imds: disabled by AWS_EC2_METADATA_DISABLED"),
            std::string::npos)
      << got.error().message;
  EXPECT_EQ(transport.sent, 0);
}

TEST(ChainCredentialsTest, ConfiguredSourceThatFailsStopsTheChain) {
  TempDir dir;
  std::string credentials = dir.write("credentials",
                                      "[default]\naws_access_key_id = AKIDFILE\n"
                                      "aws_secret_access_key = filesecret\n");
  CountingTransport transport;
  core::FakeClock clock;
  // Web identity is configured but its token file is missing: the files' keys are not used.
  auto chain = makeDefaultCredentialsChain(
      mapEnvironment({{"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/r"},
                      {"AWS_WEB_IDENTITY_TOKEN_FILE", dir.path() + "/no-token"},
                      {"AWS_SHARED_CREDENTIALS_FILE", credentials},
                      {"AWS_EC2_METADATA_DISABLED", "true"}}),
      transport, clock, "us-east-1");
  auto got = chain->get();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InvalidWebIdentityToken");
  EXPECT_NE(got.error().message.find("credentials from web-identity failed"), std::string::npos)
      << got.error().message;
  EXPECT_NE(got.error().message.find("environment: "), std::string::npos);
}

TEST(ChainCredentialsTest, RemembersTheWinner) {
  struct Counting final : CredentialsProvider {
    explicit Counting(bool has) : has(has) {}
    ApiResult<sigv4::Credentials> get() override {
      ++calls;
      if (!has) {
        return apiFail(kCredentialsNotFound, "nothing", 0);
      }
      return sigv4::Credentials{"AKID", "s", ""};
    }
    std::string name() const override { return "counting"; }
    bool has;
    int calls = 0;
  };
  auto first = std::make_unique<Counting>(false);
  auto second = std::make_unique<Counting>(true);
  Counting* firstPtr = first.get();
  Counting* secondPtr = second.get();
  std::vector<CredentialsProviderPtr> providers;
  providers.push_back(std::move(first));
  providers.push_back(std::move(second));
  ChainCredentials chain(std::move(providers));
  ASSERT_TRUE(chain.get());
  ASSERT_TRUE(chain.get());
  EXPECT_EQ(firstPtr->calls, 1);
  EXPECT_EQ(secondPtr->calls, 2);
}

}  // namespace
}  // namespace nodewright::aws
