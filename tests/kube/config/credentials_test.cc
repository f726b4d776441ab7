#include "kube/credentials.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "support/apiserver/test_server.h"

namespace nodewright::kube {
namespace {

using apiserver::testing::TempDir;
using std::chrono::minutes;
using std::chrono::seconds;

class CredentialsTest : public ::testing::Test {
 protected:
  // A plugin runner that answers from `answers_` and counts its runs.
  ExecRunner runner() {
    return [this](const ExecConfig& exec, const RestConfig& cluster) {
      ++runs_;
      EXPECT_EQ(exec.command, "plugin");
      EXPECT_EQ(cluster.server, "https://h:1");
      if (answers_.empty()) {
        return core::Result<ExecCredential>(core::fail(core::Error::internal("no answer")));
      }
      core::Result<ExecCredential> next = answers_.front();
      answers_.pop_front();
      return next;
    };
  }

  ExecCredential expiringIn(std::chrono::seconds in, const std::string& token) {
    ExecCredential credential = tokenCredential(token);
    credential.expiration = clock_.now() + in;
    return credential;
  }

  static ExecCredential tokenCredential(const std::string& token) {
    ExecCredential credential;
    credential.token = token;
    return credential;
  }

  static RestConfig config(const std::string& token = "", const std::string& tokenFile = "") {
    RestConfig config;
    config.server = "https://h:1";
    config.bearerToken = token;
    config.bearerTokenFile = tokenFile;
    return config;
  }

  static RestConfig execConfig() {
    RestConfig out = config();
    out.exec.emplace();
    out.exec->apiVersion = "client.authentication.k8s.io/v1";
    out.exec->command = "plugin";
    return out;
  }

  core::FakeClock clock_;
  TempDir dir_;
  std::deque<core::Result<ExecCredential>> answers_;
  int runs_ = 0;
};

TEST_F(CredentialsTest, StaticToken) {
  auto credentials = makeCredentials(config("t"), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "t");
  EXPECT_FALSE(credentials->clientCertificate());
}

TEST_F(CredentialsTest, NoCredentialsIsAnEmptyToken) {
  auto credentials = makeCredentials(config(), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "");
  EXPECT_EQ(runs_, 0);
}

TEST_F(CredentialsTest, TokenFileIsReadAgainOnlyAfterAMinute) {
  std::string file = dir_.write("token", "first\n");
  auto credentials = makeCredentials(config("static", file), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "first");
  dir_.write("token", "second\n");
  clock_.advance(seconds(59));
  EXPECT_EQ(credentials->token().value(), "first");
  clock_.advance(seconds(1));
  EXPECT_EQ(credentials->token().value(), "second");
}

TEST_F(CredentialsTest, InvalidateReadsTheTokenFileAgain) {
  std::string file = dir_.write("token", "first");
  auto credentials = makeCredentials(config("", file), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "first");
  dir_.write("token", "rotated");
  credentials->invalidate();
  EXPECT_EQ(credentials->token().value(), "rotated");
}

TEST_F(CredentialsTest, VanishedTokenFileKeepsTheLastToken) {
  std::string file = dir_.write("token", "first");
  auto credentials = makeCredentials(config("", file), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "first");
  std::filesystem::remove(file);
  clock_.advance(minutes(2));
  EXPECT_EQ(credentials->token().value(), "first");
  // Retried at once, not a minute later.
  dir_.write("token", "back");
  EXPECT_EQ(credentials->token().value(), "back");
}

TEST_F(CredentialsTest, UnreadableTokenFileWithoutATokenFails) {
  auto credentials = makeCredentials(config("", (dir_.path() / "none").string()), clock_, runner());
  auto token = credentials->token();
  ASSERT_FALSE(token);
  EXPECT_NE(token.error().message().find("reading the bearer token file"), std::string::npos);
}

TEST_F(CredentialsTest, StaticTokenWinsOverThePlugin) {
  RestConfig config = execConfig();
  config.bearerToken = "static";
  auto credentials = makeCredentials(config, clock_, runner());
  EXPECT_EQ(credentials->token().value(), "static");
  EXPECT_FALSE(credentials->clientCertificate());
  EXPECT_EQ(runs_, 0);
}

TEST_F(CredentialsTest, PluginTokenIsCachedUntilShortlyBeforeItExpires) {
  answers_ = {expiringIn(minutes(60), "one"), expiringIn(minutes(60), "two")};
  auto credentials = makeCredentials(execConfig(), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "one");
  clock_.advance(minutes(60) - kExecRefreshMargin - seconds(1));
  EXPECT_EQ(credentials->token().value(), "one");
  EXPECT_EQ(runs_, 1);
  clock_.advance(seconds(1));
  EXPECT_EQ(credentials->token().value(), "two");
  EXPECT_EQ(runs_, 2);
}

TEST_F(CredentialsTest, ShortLivedPluginTokenIsUsedUntilItExpires) {
  answers_ = {expiringIn(seconds(5), "one"), expiringIn(seconds(5), "two")};
  auto credentials = makeCredentials(execConfig(), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "one");
  clock_.advance(seconds(4));
  EXPECT_EQ(credentials->token().value(), "one");
  clock_.advance(seconds(1));
  EXPECT_EQ(credentials->token().value(), "two");
}

TEST_F(CredentialsTest, PluginTokenWithoutExpiryIsKeptUntilInvalidated) {
  answers_ = {tokenCredential("one"), tokenCredential("two")};
  auto credentials = makeCredentials(execConfig(), clock_, runner());
  EXPECT_EQ(credentials->token().value(), "one");
  clock_.advance(minutes(24 * 60));
  EXPECT_EQ(credentials->token().value(), "one");
  credentials->invalidate();
  EXPECT_EQ(credentials->token().value(), "two");
  EXPECT_EQ(runs_, 2);
}

TEST_F(CredentialsTest, PluginFailureIsReturnedAndRetried) {
  answers_ = {core::fail(core::Error::internal("plugin broke")), tokenCredential("ok")};
  auto credentials = makeCredentials(execConfig(), clock_, runner());
  auto failed = credentials->token();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message(), "getting credentials: plugin broke");
  EXPECT_EQ(credentials->token().value(), "ok");
}

TEST_F(CredentialsTest, PluginCertificateIsOffered) {
  ExecCredential certificate;
  certificate.clientCertificatePem = "CERT";
  certificate.clientKeyPem = "KEY";
  answers_ = {certificate};
  auto credentials = makeCredentials(execConfig(), clock_, runner());
  auto offered = credentials->clientCertificate();
  ASSERT_TRUE(offered);
  EXPECT_EQ(offered->first, "CERT");
  EXPECT_EQ(offered->second, "KEY");
  EXPECT_EQ(credentials->token().value(), "");
  EXPECT_EQ(runs_, 1);
}

}  // namespace
}  // namespace nodewright::kube
