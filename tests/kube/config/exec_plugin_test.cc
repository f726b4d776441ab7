#include "kube/exec_plugin.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "api/core/validation.h"
#include "api/reflect/json.h"
#include "core/time.h"
#include "support/apiserver/test_server.h"

namespace nodewright::kube {
namespace {

using apiserver::testing::readFile;
using apiserver::testing::TempDir;

constexpr const char* kV1 = "client.authentication.k8s.io/v1";
constexpr const char* kV1beta1 = "client.authentication.k8s.io/v1beta1";
const std::string kScript = NW_SOURCE_DIR "/tests/kube/config/exec_plugin.sh";

TEST(ParseExecCredentialTest, ReadsTokenAndExpiry) {
  auto credential = parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"t0k","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      kV1);
  ASSERT_TRUE(credential) << credential.error().message();
  EXPECT_EQ(credential->token, "t0k");
  ASSERT_TRUE(credential->expiration);
  auto expected = core::Time::parse("2030-01-02T03:04:05Z")->point();
  EXPECT_EQ(*credential->expiration, expected);
}

TEST(ParseExecCredentialTest, ReadsAClientCertificate) {
  auto credential = parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
          "status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      kV1beta1);
  ASSERT_TRUE(credential) << credential.error().message();
  EXPECT_EQ(credential->token, "");
  EXPECT_EQ(credential->clientCertificatePem, "CERT");
  EXPECT_EQ(credential->clientKeyPem, "KEY");
  EXPECT_FALSE(credential->expiration);
}

struct BadOutput {
  std::string name;
  std::string output;
  std::string message;
};

class ParseExecCredentialErrorTest : public ::testing::TestWithParam<BadOutput> {};

TEST_P(ParseExecCredentialErrorTest, RejectsWithoutQuotingTheOutput) {
  auto credential = parseExecCredential(GetParam().output, kV1);
  ASSERT_FALSE(credential);
  EXPECT_NE(credential.error().message().find(GetParam().message), std::string::npos)
      << credential.error().message();
  EXPECT_EQ(credential.error().message().find("SECRET"), std::string::npos)
      << credential.error().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseExecCredentialErrorTest,
    ::testing::Values(
        BadOutput{"NotJson", "token=SECRET", "not an ExecCredential in JSON"},
        BadOutput{"TruncatedJson", R"({"status":{"token":"SECRET)", "not an ExecCredential"},
        BadOutput{"WrongApiVersion",
                  R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
                      "status":{"token":"SECRET"}})",
                  "configured for client.authentication.k8s.io/v1, but the plugin returned "
                  "client.authentication.k8s.io/v1beta1"},
        BadOutput{"SecretInApiVersion",
                  R"({"apiVersion":"SECRET","kind":"ExecCredential","status":{}})",
                  "but the plugin returned another one"},
        BadOutput{"WrongKind",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret",
                      "status":{"token":"SECRET"}})",
                  "kind: must be ExecCredential"},
        BadOutput{"NoStatus",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
                  "status: the plugin returned none"},
        BadOutput{"Nothing",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                      "status":{}})",
                  "neither a token nor a client certificate"},
        BadOutput{"KeyWithoutCertificate",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                      "status":{"clientKeyData":"SECRET"}})",
                  "only one of clientCertificateData and clientKeyData"},
        BadOutput{"TokenNotAString",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                      "status":{"token":["SECRET"]}})",
                  "status.token: must be a string"},
        BadOutput{"BadExpiry",
                  R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                      "status":{"token":"t","expirationTimestamp":"SECRET"}})",
                  "status.expirationTimestamp: not an RFC 3339 time"}),
    [](const auto& info) { return info.param.name; });

ExecConfig execOf(const std::string& apiVersion, const std::string& command) {
  ExecConfig exec;
  exec.apiVersion = apiVersion;
  exec.command = command;
  exec.interactiveMode = "Never";
  return exec;
}

RestConfig cluster(const std::string& caPem) {
  RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.caPem = caPem;
  return config;
}

TEST(ExecInfoTest, IsANonInteractiveRequest) {
  ExecConfig exec = execOf(kV1, "x");
  EXPECT_EQ(execInfo(exec, cluster("CA")),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"interactive":false}})");
}

TEST(ExecInfoTest, CarriesTheClusterWhenAsked) {
  ExecConfig exec = execOf(kV1beta1, "x");
  exec.provideClusterInfo = true;
  RestConfig withName = cluster("CA");
  withName.tlsServerName = "kubernetes";
  auto info = api::Json::parse(execInfo(exec, withName));
  EXPECT_EQ(info["apiVersion"], kV1beta1);
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://127.0.0.1:6443");
  EXPECT_EQ(info["spec"]["cluster"]["tls-server-name"], "kubernetes");
  EXPECT_EQ(info["spec"]["cluster"]["certificate-authority-data"], api::corev1::encodeBase64("CA"));
  EXPECT_FALSE(info["spec"]["cluster"].contains("insecure-skip-tls-verify"));
}

// Runs tests/kube/config/exec_plugin.sh with the given environment.
class RunExecPluginTest : public ::testing::Test {
 protected:
  ExecConfig plugin(std::vector<std::pair<std::string, std::string>> env) {
    env.emplace_back("NW_EXEC_RECORD", record_);
    ExecConfig exec = execOf(kV1, "/bin/sh");
    exec.args = {kScript, "--flag", "value"};
    exec.env = std::move(env);
    exec.provideClusterInfo = true;
    return exec;
  }

  TempDir dir_;
  std::string record_ = (dir_.path() / "record").string();
  RestConfig cluster_ = cluster("CA");
};

TEST_F(RunExecPluginTest, ReturnsThePluginsToken) {
  auto credential = runExecPlugin(
      plugin({{"NW_EXEC_TOKEN", "from-plugin"}, {"NW_EXEC_EXPIRY", "2030-01-01T00:00:00Z"}}),
      cluster_);
  ASSERT_TRUE(credential) << credential.error().message();
  EXPECT_EQ(credential->token, "from-plugin");
  EXPECT_EQ(*credential->expiration, core::Time::parse("2030-01-01T00:00:00Z")->point());
}

TEST_F(RunExecPluginTest, PassesArgumentsAndExecInfo) {
  ExecConfig exec = plugin({{"NW_EXEC_TOKEN", "t"}});
  ASSERT_TRUE(runExecPlugin(exec, cluster_));
  EXPECT_EQ(readFile(record_), "info=" + execInfo(exec, cluster_) + "\nargs=--flag value\n");
  EXPECT_NE(readFile(record_).find(R"("server":"https://127.0.0.1:6443")"), std::string::npos);
}

TEST_F(RunExecPluginTest, ReturnsAClientCertificate) {
  auto credential = runExecPlugin(plugin({{"NW_EXEC_MODE", "cert"}}), cluster_);
  ASSERT_TRUE(credential) << credential.error().message();
  EXPECT_EQ(credential->clientCertificatePem, "CERT");
  EXPECT_EQ(credential->clientKeyPem, "KEY");
}

TEST_F(RunExecPluginTest, FailsOnANonZeroExit) {
  auto credential =
      runExecPlugin(plugin({{"NW_EXEC_MODE", "fail"}, {"NW_EXEC_TOKEN", "SECRET"}}), cluster_);
  ASSERT_FALSE(credential);
  EXPECT_EQ(credential.error().message(), "exec plugin \"/bin/sh\": failed with exit code 3");
}

TEST_F(RunExecPluginTest, FailsOnOutputThatIsNotJson) {
  auto credential =
      runExecPlugin(plugin({{"NW_EXEC_MODE", "garbage"}, {"NW_EXEC_TOKEN", "SECRET"}}), cluster_);
  ASSERT_FALSE(credential);
  EXPECT_EQ(credential.error().message(),
            "exec plugin \"/bin/sh\": the output is not an ExecCredential in JSON");
}

TEST_F(RunExecPluginTest, FailsOnAnotherApiVersion) {
  auto credential = runExecPlugin(
      plugin({{"NW_EXEC_API_VERSION", kV1beta1}, {"NW_EXEC_TOKEN", "SECRET"}}), cluster_);
  ASSERT_FALSE(credential);
  EXPECT_NE(credential.error().message().find("configured for client.authentication.k8s.io/v1,"),
            std::string::npos)
      << credential.error().message();
  EXPECT_EQ(credential.error().message().find("SECRET"), std::string::npos);
}

TEST_F(RunExecPluginTest, MissingCommandShowsTheInstallHint) {
  ExecConfig exec = execOf(kV1, "nodewright-no-such-credential-plugin");
  exec.installHint = "Install it with: brew install the-plugin";
  auto credential = runExecPlugin(exec, cluster_);
  ASSERT_FALSE(credential);
  EXPECT_TRUE(credential.error().is(core::Code::NotFound));
  EXPECT_EQ(credential.error().message(),
            "exec plugin \"nodewright-no-such-credential-plugin\": executable not found. "
            "Install it with: brew install the-plugin");
}

TEST_F(RunExecPluginTest, KillsAPluginThatDoesNotAnswer) {
  auto credential =
      runExecPlugin(plugin({{"NW_EXEC_MODE", "hang"}}), cluster_, std::chrono::milliseconds(200));
  ASSERT_FALSE(credential);
  EXPECT_EQ(credential.error().message(),
            "exec plugin \"/bin/sh\": no answer within 200ms; killed");
}

TEST_F(RunExecPluginTest, ClosesItsDescriptorsWhateverTheOutcome) {
  auto open = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                         std::filesystem::directory_iterator());
  };
  auto before = open();
  EXPECT_TRUE(runExecPlugin(plugin({{"NW_EXEC_TOKEN", "t"}}), cluster_));
  EXPECT_FALSE(runExecPlugin(plugin({{"NW_EXEC_MODE", "fail"}}), cluster_));
  EXPECT_FALSE(
      runExecPlugin(plugin({{"NW_EXEC_MODE", "hang"}}), cluster_, std::chrono::milliseconds(50)));
  EXPECT_FALSE(runExecPlugin(execOf(kV1, "nodewright-no-such-credential-plugin"), cluster_));
  EXPECT_EQ(open(), before);
}

TEST_F(RunExecPluginTest, RefusesInteractiveModeAlways) {
  ExecConfig exec = plugin({{"NW_EXEC_TOKEN", "t"}});
  exec.interactiveMode = "Always";
  auto credential = runExecPlugin(exec, cluster_);
  ASSERT_FALSE(credential);
  EXPECT_NE(credential.error().message().find("needs a terminal"), std::string::npos);
  // It never ran.
  EXPECT_EQ(readFile(record_), "");
}

}  // namespace
}  // namespace nodewright::kube
