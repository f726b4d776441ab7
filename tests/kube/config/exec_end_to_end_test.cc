// A kubeconfig whose user is an exec plugin, against the embedded API server over real HTTPS.
#include <gtest/gtest.h>

#include <string>

#include "api/core/namespace.h"
#include "http/client.h"
#include "kube/client.h"
#include "kube/config.h"
#include "support/apiserver/test_server.h"

namespace nodewright::kube {
namespace {

using apiserver::testing::readFile;
using apiserver::testing::TempDir;
using apiserver::testing::TestApiServer;

const std::string kScript = NW_SOURCE_DIR "/tests/kube/config/exec_plugin.sh";

// How often the plugin ran: it appends one "info=" line per run to its record file.
size_t pluginRuns(const std::string& record) {
  size_t runs = 0;
  for (size_t at = record.find("info="); at != std::string::npos;
       at = record.find("info=", at + 1)) {
    ++runs;
  }
  return runs;
}

class ExecEndToEndTest : public ::testing::Test {
 protected:
  // The CA sits beside the kubeconfig as a relative path; the plugin prints `token`.
  std::string writeKubeconfig(const std::string& token) {
    dir_.write("pki/ca.crt", server_.caPem());
    return dir_.write("config", R"(apiVersion: v1
kind: Config
clusters:
- name: embedded
  cluster:
    server: https://127.0.0.1:)" + std::to_string(server_.port()) +
                                    R"(
    certificate-authority: pki/ca.crt
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/sh
      args: [")" + kScript + R"("]
      env:
      - {name: NW_EXEC_TOKEN, value: ")" +
                                    token +
                                    R"("}
      - {name: NW_EXEC_RECORD, value: ")" +
                                    record_ +
                                    R"("}
      interactiveMode: Never
      provideClusterInfo: true
contexts:
- name: embedded
  context: {cluster: embedded, user: plugin}
current-context: embedded
)");
  }

  // GET /api/v1/namespaces with the credentials' token, verifying the server by the config's CA.
  int listNamespaces(const RestConfig& config, Credentials& credentials) {
    auto token = credentials.token();
    EXPECT_TRUE(token) << token.error().message();
    http::ClientOptions options;
    options.port = server_.port();
    options.caPem = config.caPem;
    options.token = token.value_or("");
    auto client = http::connectClient(options);
    EXPECT_TRUE(client) << client.error().message();
    if (!client) {
      return -1;
    }
    auto response = (*client)->send("GET", "/api/v1/namespaces");
    EXPECT_TRUE(response) << response.error().message();
    return response ? response->status : -1;
  }

  TestApiServer server_;
  TempDir dir_;
  std::string record_ = (dir_.path() / "record").string();
};

TEST_F(ExecEndToEndTest, PluginTokenAuthenticates) {
  auto config = loadKubeconfig(writeKubeconfig(server_.token()));
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://127.0.0.1:" + std::to_string(server_.port()));
  auto credentials = makeCredentials(*config);
  EXPECT_EQ(listNamespaces(*config, *credentials), 200);
  // The plugin ran once and was told which cluster it serves.
  std::string record = readFile(record_);
  EXPECT_NE(record.find(R"("server":")" + config->server + "\""), std::string::npos) << record;
  EXPECT_NE(record.find("\"certificate-authority-data\""), std::string::npos) << record;
  EXPECT_EQ(listNamespaces(*config, *credentials), 200);
  EXPECT_EQ(readFile(record_), record) << "the cached token should have been reused";
}

TEST_F(ExecEndToEndTest, WrongPluginTokenIsRejected) {
  auto config = loadKubeconfig(writeKubeconfig("not-the-token"));
  ASSERT_TRUE(config) << config.error().message();
  auto credentials = makeCredentials(*config);
  EXPECT_EQ(listNamespaces(*config, *credentials), 401);
  // After a 401 the caller invalidates, and the plugin runs again.
  credentials->invalidate();
  EXPECT_EQ(listNamespaces(*config, *credentials), 401);
  EXPECT_EQ(pluginRuns(readFile(record_)), 2u);
}

TEST_F(ExecEndToEndTest, ReadsTheServersOwnKubeconfig) {
  auto config = loadKubeconfig(server_.kubeconfig());
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->caPem, server_.caPem());
  EXPECT_EQ(config->bearerToken, server_.token());
  auto credentials = makeCredentials(*config);
  EXPECT_EQ(listNamespaces(*config, *credentials), 200);
}

// The whole path a controller takes: kubeconfig, exec plugin, libcurl transport, typed client.
TEST_F(ExecEndToEndTest, TheClientAuthenticatesThroughThePlugin) {
  auto config = loadKubeconfig(writeKubeconfig(server_.token()));
  ASSERT_TRUE(config) << config.error().message();
  auto client = Client::create(*config);
  ASSERT_TRUE(client) << client.error().message();
  auto namespaces = (*client)->list(kindOf<api::corev1::Namespace>(), "");
  ASSERT_TRUE(namespaces) << namespaces.error().describe();
  EXPECT_FALSE(namespaces->items.empty());
  EXPECT_TRUE((*client)->get(kindOf<api::corev1::Namespace>(), "", "default"));
  EXPECT_EQ(pluginRuns(readFile(record_)), 1u);
}

TEST_F(ExecEndToEndTest, TheClientRunsThePluginAgainOnceAfterA401) {
  auto config = loadKubeconfig(writeKubeconfig("not-the-token"));
  ASSERT_TRUE(config) << config.error().message();
  auto client = Client::create(*config);
  ASSERT_TRUE(client) << client.error().message();
  auto result = (*client)->get(kindOf<api::corev1::Namespace>(), "", "default");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, Reason::Unauthorized);
  // A credential that expired early gets one fresh try, not a loop.
  EXPECT_EQ(pluginRuns(readFile(record_)), 2u);
}

}  // namespace
}  // namespace nodewright::kube
