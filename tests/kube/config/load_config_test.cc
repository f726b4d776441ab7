#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "kube/config.h"
#include "support/apiserver/test_server.h"

namespace nodewright::kube {
namespace {

using apiserver::testing::TempDir;

// The variables loadConfig and inClusterConfig read, unset for each test and restored after.
class LoadConfigTest : public ::testing::Test {
 protected:
  LoadConfigTest() {
    for (const char* name : kVariables) {
      const char* value = std::getenv(name);
      saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
      unsetenv(name);
    }
    setenv("HOME", dir_.path().c_str(), 1);
  }
  ~LoadConfigTest() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

  // A kubeconfig whose server names it.
  std::string kubeconfig(const std::string& relative, const std::string& server) {
    return dir_.write(relative, "clusters: [{name: c, cluster: {server: \"" + server +
                                    "\"}}]\n"
                                    "contexts: [{name: x, context: {cluster: c}}, {name: other, "
                                    "context: {cluster: c}}]\n"
                                    "current-context: x\n");
  }

  static constexpr const char* kVariables[] = {"KUBECONFIG", "KUBERNETES_SERVICE_HOST",
                                               "KUBERNETES_SERVICE_PORT", "HOME"};
  TempDir dir_;
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST_F(LoadConfigTest, ExplicitPathWinsOverEverything) {
  std::string explicitPath = kubeconfig("explicit", "https://explicit:1");
  setenv("KUBECONFIG", kubeconfig("env", "https://env:1").c_str(), 1);
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = loadConfig(explicitPath, {.context = "other"});
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://explicit:1");
  EXPECT_EQ(config->source, "kubeconfig " + explicitPath + " context other");
}

TEST_F(LoadConfigTest, KubeconfigVariableTakesItsFirstExistingEntry) {
  std::string first = kubeconfig("first", "https://first:1");
  std::string second = kubeconfig("second", "https://second:1");
  std::string list = (dir_.path() / "missing").string() + "::" + first + ":" + second;
  setenv("KUBECONFIG", list.c_str(), 1);
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = loadConfig("");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://first:1");
}

TEST_F(LoadConfigTest, KubeconfigVariableWithoutAnyFileIsNotFound) {
  kubeconfig(".kube/config", "https://home:1");
  setenv("KUBECONFIG", (dir_.path() / "missing").c_str(), 1);
  auto config = loadConfig("");
  ASSERT_FALSE(config);
  EXPECT_TRUE(config.error().is(core::Code::NotFound)) << config.error().message();
  EXPECT_NE(config.error().message().find("KUBECONFIG="), std::string::npos);
}

TEST_F(LoadConfigTest, InClusterWhenTheServiceHostIsSet) {
  kubeconfig(".kube/config", "https://home:1");
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = loadConfig("");
  // This machine has no service account, so the in-cluster attempt is what fails.
  if (config) {
    EXPECT_EQ(config->source, "in-cluster");
  } else {
    EXPECT_NE(config.error().message().find("service account"), std::string::npos)
        << config.error().message();
  }
}

TEST_F(LoadConfigTest, FallsBackToTheHomeKubeconfig) {
  kubeconfig(".kube/config", "https://home:1");
  auto config = loadConfig("");
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://home:1");
}

TEST_F(LoadConfigTest, NothingToLoadIsNotFound) {
  auto config = loadConfig("");
  ASSERT_FALSE(config);
  EXPECT_TRUE(config.error().is(core::Code::NotFound)) << config.error().message();
}

class InClusterConfigTest : public LoadConfigTest {
 protected:
  InClusterConfigTest() {
    sa_ = (dir_.path() / "sa").string();
    dir_.write("sa/token", "sa-token\n");
    dir_.write("sa/ca.crt", "CLUSTER-CA");
  }
  std::string sa_;
};

TEST_F(InClusterConfigTest, ReadsTheServiceAccount) {
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = inClusterConfig(sa_);
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->bearerToken, "sa-token");
  EXPECT_EQ(config->bearerTokenFile, sa_ + "/token");
  EXPECT_EQ(config->caPem, "CLUSTER-CA");
  EXPECT_EQ(config->source, "in-cluster");
}

TEST_F(InClusterConfigTest, BracketsAnIpv6Host) {
  setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
  auto config = inClusterConfig(sa_);
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:6443");
}

TEST_F(InClusterConfigTest, OutsideAClusterIsNotFound) {
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  auto config = inClusterConfig(sa_);
  ASSERT_FALSE(config);
  EXPECT_TRUE(config.error().is(core::Code::NotFound));
  EXPECT_NE(config.error().message().find("KUBERNETES_SERVICE_PORT"), std::string::npos);
}

TEST_F(InClusterConfigTest, MissingTokenIsAnError) {
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = inClusterConfig((dir_.path() / "elsewhere").string());
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message().find("reading the service account token"), std::string::npos)
      << config.error().message();
}

}  // namespace
}  // namespace nodewright::kube
