#include <gtest/gtest.h>

#include <string>

#include "api/core/validation.h"
#include "kube/config.h"
#include "support/apiserver/test_server.h"

namespace nodewright::kube {
namespace {

using apiserver::testing::TempDir;

std::string b64(const std::string& text) {
  return api::corev1::encodeBase64(text);
}

// Two clusters, two users, two contexts; "b" is current.
std::string twoContexts() {
  return R"(apiVersion: v1
kind: Config
clusters:
- name: a
  cluster:
    server: https://a.example:6443
- name: b
  cluster:
    server: https://127.0.0.1:7443/
    certificate-authority-data: )" +
         b64("CA-B") + R"(
    tls-server-name: kubernetes
users:
- name: alice
  user:
    token: token-a
- name: bob
  user:
    token: token-b
contexts:
- name: ctx-a
  context:
    cluster: a
    user: alice
- name: ctx-b
  context:
    cluster: b
    user: bob
    namespace: default
current-context: ctx-b
)";
}

TEST(KubeconfigTest, ReadsTheCurrentContext) {
  auto config = parseKubeconfig(twoContexts(), "/etc/kube");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://127.0.0.1:7443");
  EXPECT_EQ(config->caPem, "CA-B");
  EXPECT_EQ(config->tlsServerName, "kubernetes");
  EXPECT_EQ(config->bearerToken, "token-b");
  EXPECT_TRUE(config->bearerTokenFile.empty());
  EXPECT_FALSE(config->exec);
  EXPECT_EQ(config->source, "kubeconfig context ctx-b");
}

TEST(KubeconfigTest, ContextOptionOverridesCurrentContext) {
  auto config = parseKubeconfig(twoContexts(), "", {.context = "ctx-a"});
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://a.example:6443");
  EXPECT_EQ(config->caPem, "");
  EXPECT_EQ(config->bearerToken, "token-a");
  EXPECT_EQ(config->source, "kubeconfig context ctx-a");
}

TEST(KubeconfigTest, ServerWithoutSchemeIsHttps) {
  auto config = parseKubeconfig(R"(
clusters: [{name: c, cluster: {server: "10.0.0.1:6443"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)",
                                "");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  // No user: anonymous requests.
  EXPECT_EQ(config->bearerToken, "");
  EXPECT_EQ(config->clientCertificatePem, "");
}

TEST(KubeconfigTest, ResolvesRelativePathsAgainstItsDirectory) {
  TempDir dir;
  dir.write("pki/ca.crt", "CA-FILE");
  dir.write("pki/client.crt", "CERT-FILE");
  dir.write("pki/client.key", "KEY-FILE");
  dir.write("token", "  file-token\n");
  std::string text = R"(
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: pki/ca.crt
users:
- name: u
  user:
    client-certificate: pki/client.crt
    client-key: ./pki/../pki/client.key
    tokenFile: token
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)";
  auto config = parseKubeconfig(text, dir.path().string());
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->caPem, "CA-FILE");
  EXPECT_EQ(config->clientCertificatePem, "CERT-FILE");
  EXPECT_EQ(config->clientKeyPem, "KEY-FILE");
  EXPECT_EQ(config->bearerTokenFile, (dir.path() / "token").string());
  EXPECT_EQ(config->bearerToken, "file-token");
}

TEST(KubeconfigTest, InlineDataIsDecoded) {
  std::string text = R"(
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority-data: )" +
                     b64("CA") + R"(}}]
users:
- name: u
  user:
    client-certificate-data: )" +
                     b64("CERT") + R"(
    client-key-data: )" +
                     b64("KEY") +
                     R"(
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)";
  auto config = parseKubeconfig(text, "/nonexistent");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->caPem, "CA");
  EXPECT_EQ(config->clientCertificatePem, "CERT");
  EXPECT_EQ(config->clientKeyPem, "KEY");
}

TEST(KubeconfigTest, CaDataWinsOverCaFile) {
  std::string text = R"(
clusters:
- name: c
  cluster:
    server: https://h:1
    certificate-authority: missing/ca.crt
    certificate-authority-data: )" +
                     b64("CA-DATA") + R"(
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)";
  auto config = parseKubeconfig(text, "/nonexistent");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->caPem, "CA-DATA");
}

TEST(KubeconfigTest, StaticTokenIsKeptBesideTokenFile) {
  // client-go: the token serves until the file is read, so the file is not read here.
  auto config = parseKubeconfig(R"(
clusters: [{name: c, cluster: {server: "https://h:1"}}]
users: [{name: u, user: {token: static, tokenFile: /nonexistent/token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)",
                                "");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->bearerToken, "static");
  EXPECT_EQ(config->bearerTokenFile, "/nonexistent/token");
}

TEST(KubeconfigTest, ReadsExecPlugin) {
  auto config = parseKubeconfig(R"(
clusters: [{name: c, cluster: {server: "https://h:1"}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/plugin
      args: [get-token, --cluster, c]
      env:
      - name: A
        value: "1"
      - name: B
      installHint: install it with brew
      provideClusterInfo: true
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)",
                                "/home/me/.kube");
  ASSERT_TRUE(config) << config.error().message();
  ASSERT_TRUE(config->exec);
  const ExecConfig& exec = *config->exec;
  EXPECT_EQ(exec.apiVersion, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(exec.command, "/home/me/.kube/bin/plugin");
  EXPECT_EQ(exec.args, (std::vector<std::string>{"get-token", "--cluster", "c"}));
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(exec.env, (Env{{"A", "1"}, {"B", ""}}));
  EXPECT_EQ(exec.installHint, "install it with brew");
  EXPECT_TRUE(exec.provideClusterInfo);
  EXPECT_EQ(exec.interactiveMode, "IfAvailable");  // v1beta1's default
}

TEST(KubeconfigTest, ExecCommandWithoutSlashIsLookedUpOnPath) {
  auto config = parseKubeconfig(R"(
clusters: [{name: c, cluster: {server: "https://h:1"}}]
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, interactiveMode: Never}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)",
                                "/home/me/.kube");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->exec->command, "aws");
  EXPECT_EQ(config->exec->interactiveMode, "Never");
}

TEST(KubeconfigTest, BrokenEntriesOutsideTheContextAreNotResolved) {
  auto config = parseKubeconfig(R"(
clusters:
- {name: c, cluster: {server: "https://h:1"}}
- {name: broken, cluster: {certificate-authority: /nonexistent/ca.crt}}
users:
- {name: u, user: {token: t}}
- {name: broken, user: {client-key-data: "!!!"}}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)",
                                "");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->bearerToken, "t");
}

TEST(KubeconfigTest, LoadsFromAFileAndResolvesAgainstItsDirectory) {
  TempDir dir;
  dir.write("conf/ca.crt", "CA-NEXT-TO-IT");
  std::string path = dir.write("conf/config", R"(
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: ca.crt}}]
contexts: [{name: kind-a, context: {cluster: c}}]
current-context: kind-a
)");
  auto config = loadKubeconfig(path);
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->caPem, "CA-NEXT-TO-IT");
  EXPECT_EQ(config->source, "kubeconfig " + path + " context kind-a");
}

TEST(KubeconfigTest, LoadErrorsNameTheFile) {
  TempDir dir;
  std::string path = dir.write("config", "current-context: nowhere\n");
  auto config = loadKubeconfig(path);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().message(),
            "kubeconfig " + path + ": current-context: context \"nowhere\" not found");

  auto missing = loadKubeconfig((dir.path() / "absent").string());
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(core::Code::NotFound));
  EXPECT_NE(missing.error().message().find("absent: No such file or directory"), std::string::npos)
      << missing.error().message();
}

struct ErrorCase {
  std::string name;
  std::string yaml;
  std::string message;    // expected within the error
  std::string context{};  // KubeconfigOptions::context
  std::string secret{};   // must not appear in the error
};

class KubeconfigErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(KubeconfigErrorTest, NamesTheField) {
  const ErrorCase& c = GetParam();
  auto config = parseKubeconfig(c.yaml, "/nonexistent", {.context = c.context});
  ASSERT_FALSE(config) << "parsed: " << config->server;
  EXPECT_NE(config.error().message().find(c.message), std::string::npos)
      << config.error().message();
  if (!c.secret.empty()) {
    EXPECT_EQ(config.error().message().find(c.secret), std::string::npos)
        << config.error().message();
  }
}

constexpr const char* kTail = R"(
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)";
constexpr const char* kCluster = R"(
clusters: [{name: c, cluster: {server: "https://h:1"}}]
)";

std::string withUser(const std::string& user) {
  return std::string(kCluster) + "users:\n- name: u\n  user:\n" + user + kTail;
}

std::string withCluster(const std::string& cluster) {
  return "clusters:\n- name: c\n  cluster:\n" + cluster + "users: [{name: u, user: {}}]\n" + kTail;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, KubeconfigErrorTest,
    ::testing::Values(
        ErrorCase{"ClusterNotFound", std::string(kCluster) + R"(
contexts:
- {name: other, context: {cluster: c}}
- {name: x, context: {cluster: elsewhere}}
current-context: x
)",
                  "contexts[1].context.cluster: cluster \"elsewhere\" not found"},
        ErrorCase{"UserNotFound",
                  std::string(kCluster) + "users: [{name: someone, user: {}}]" + kTail,
                  "contexts[0].context.user: user \"u\" not found"},
        ErrorCase{"ContextNotFound", std::string(kCluster) + kTail, "context \"nope\" not found",
                  "nope"},
        ErrorCase{"CurrentContextNotFound", std::string(kCluster) + "current-context: gone\n",
                  "current-context: context \"gone\" not found"},
        ErrorCase{"NoContextChosen", std::string(kCluster), "current-context: not set"},
        ErrorCase{"ClusterWithoutServer", withCluster("    tls-server-name: x\n"),
                  "clusters[0].cluster.server: Required value"},
        ErrorCase{"ServerNotHttp", withCluster("    server: ftp://h:1\n"),
                  "clusters[0].cluster.server: must be an http or https URL"},
        ErrorCase{"BadCaBase64",
                  withCluster("    server: https://h:1\n    certificate-authority-data: ab$d\n"),
                  "clusters[0].cluster.certificate-authority-data: illegal base64 data at input "
                  "byte 2"},
        ErrorCase{"MissingCaFile",
                  withCluster("    server: https://h:1\n    certificate-authority: ca.crt\n"),
                  "clusters[0].cluster.certificate-authority: open /nonexistent/ca.crt: No such "
                  "file or directory"},
        ErrorCase{"InsecureWithCa",
                  withCluster("    server: https://h:1\n    certificate-authority-data: " +
                              b64("CA") + "\n    insecure-skip-tls-verify: true\n"),
                  "clusters[0].cluster.insecure-skip-tls-verify: cannot be combined"},
        ErrorCase{"InsecureNotABool",
                  withCluster("    server: https://h:1\n    insecure-skip-tls-verify: \"yes\"\n"),
                  "clusters[0].cluster.insecure-skip-tls-verify: must be true or false"},
        ErrorCase{"TokenNotAString", withUser("    token: 8675309123\n"),
                  "users[0].user.token: must be a string", "", "8675309123"},
        ErrorCase{"BadKeyBase64",
                  withUser("    client-certificate-data: " + b64("C") +
                           "\n    client-key-data: c2VjcmV0!\n"),
                  "users[0].user.client-key-data: illegal base64 data at input byte 8", "",
                  "c2VjcmV0"},
        ErrorCase{"CertificateWithoutKey", withUser("    client-certificate: c.crt\n"),
                  "users[0].user.client-key: Required value"},
        ErrorCase{"CertificateDataAndFile",
                  withUser("    client-certificate: c.crt\n    client-certificate-data: " +
                           b64("C") + "\n    client-key-data: " + b64("K") + "\n"),
                  "users[0].user.client-certificate-data: cannot be combined with "
                  "client-certificate"},
        ErrorCase{
            "MissingKeyFile",
            withUser("    client-certificate-data: " + b64("C") + "\n    client-key: keys/k.pem\n"),
            "users[0].user.client-key: open /nonexistent/keys/k.pem: No such file"},
        ErrorCase{"MissingTokenFile", withUser("    tokenFile: /nonexistent/token\n"),
                  "users[0].user.tokenFile: open /nonexistent/token: No such file"},
        ErrorCase{"ExecWithoutCommand",
                  withUser("    exec: {apiVersion: client.authentication.k8s.io/v1beta1}\n"),
                  "users[0].user.exec.command: Required value"},
        ErrorCase{"ExecUnknownApiVersion",
                  withUser("    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, "
                           "command: x}\n"),
                  "users[0].user.exec.apiVersion: Unsupported value"},
        ErrorCase{"ExecV1NeedsInteractiveMode",
                  withUser("    exec: {apiVersion: client.authentication.k8s.io/v1, command: x}\n"),
                  "users[0].user.exec.interactiveMode: Required value"},
        ErrorCase{"ExecEnvWithoutName",
                  withUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                           "      command: x\n      env: [{value: v}]\n"),
                  "users[0].user.exec.env[0].name: Required value"},
        ErrorCase{"ExecArgNotAString",
                  withUser("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                           "      command: x\n      args: [a, {b: c}]\n"),
                  "users[0].user.exec.args[1]: must be a string"},
        ErrorCase{"AuthProvider", withUser("    auth-provider: {name: oidc}\n"),
                  "users[0].user.auth-provider: auth providers are not supported"},
        ErrorCase{"DuplicateName",
                  "clusters:\n- {name: c, cluster: {server: \"https://h:1\"}}\n"
                  "- {name: c, cluster: {server: \"https://h:2\"}}\n" +
                      std::string(kTail),
                  "clusters[1].name: duplicate name \"c\""},
        ErrorCase{"EntryWithoutName",
                  "clusters:\n- {cluster: {server: \"https://h:1\"}}\n" + std::string(kTail),
                  "clusters[0].name: Required value"},
        // YAML 1.1, as kubectl reads it: an unquoted yes is a boolean.
        ErrorCase{
            "NameNotAString",
            "clusters:\n- {name: yes, cluster: {server: \"https://h:1\"}}\n" + std::string(kTail),
            "clusters[0].name: must be a string"},
        ErrorCase{"ListNotAList", "clusters: {c: 1}\n" + std::string(kTail),
                  "clusters: must be a list"},
        ErrorCase{"NotAMapping", "- a\n- b\n", "must be a mapping"},
        ErrorCase{"Empty", "", "no configuration"},
        ErrorCase{"MalformedYaml", "clusters: [{name: c, cluster: {server: x}\nusers: [\n",
                  "line "},
        ErrorCase{"TwoDocuments", std::string(kCluster) + kTail + "---\nkind: Config\n",
                  "2 YAML documents"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::kube
