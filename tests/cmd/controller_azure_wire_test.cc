#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "api/capz/azure_cluster.h"
#include "cmd_test_util.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "kube/config.h"
#include "support/apiserver/test_server.h"

// The real binary: `nodewright controller --cloud azure` against the embedded API server and
// the ARM emulator over HTTPS, the service principal from the environment and checked by the
// emulator's Entra endpoint. It brings a Cluster's AzureCluster to Ready, then SIGTERM stops it
// promptly with exit 0.
namespace nodewright::cmd {
namespace {

using namespace std::chrono_literals;
using apiserver::testing::Child;
using apiserver::testing::TestApiServer;

constexpr const char* kClientId = "00000000-0000-0000-0000-0000000c7a11";
constexpr const char* kClientSecret = "controller-wire-test-secret";
constexpr const char* kCluster = "prod-westeurope";

std::string binary() {
  const char* fromEnv = std::getenv("NW_BINARY");
  return fromEnv != nullptr && *fromEnv != '\0' ? fromEnv : NW_BINARY;
}

// Polls `condition` until it holds or `timeout` passes (a wait on a condition, not a sleep).
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) {
      return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return condition();
}

class ControllerAzureWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions options;
    options.engine.timeScale = 50;
    options.clientSecrets = {{kClientId, kClientSecret}};
    auto arm = emulators::arm::ArmServer::start(core::systemClock(), std::move(options));
    ASSERT_TRUE(arm) << arm.error().message();
    arm_ = std::move(*arm);
    auto config = kube::loadKubeconfig(api_.kubeconfig());
    ASSERT_TRUE(config) << config.error().message();
    auto client = kube::Client::create(*config);
    ASSERT_TRUE(client) << client.error().message();
    client_ = std::move(*client);
  }

  void TearDown() override {
    if (arm_) {
      arm_->stop();
    }
  }

  void kubectl(const std::vector<std::string>& args) {
    auto ran = apiserver::testing::kubectl(api_, args);
    ASSERT_EQ(ran.code, 0) << ran.err;
  }

  // The controller as a child process; the credential reaches it only through its environment.
  std::unique_ptr<Child> startController() {
    setenv("AZURE_TENANT_ID", arm_->emulator().options().tenantId.c_str(), 1);
    setenv("AZURE_CLIENT_ID", kClientId, 1);
    setenv("AZURE_CLIENT_SECRET", kClientSecret, 1);
    unsetenv("AZURE_AUTHORITY_HOST");
    const std::string ca = scratch_.write("arm-ca.pem", arm_->caPem());
    std::vector<std::string> argv = {binary(), "controller"};
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--cloud", "azure"},
             {"--kubeconfig", api_.kubeconfig()},
             {"--azure-resource-manager-endpoint", arm_->url()},
             {"--azure-authority-host", arm_->url()},
             {"--azure-ca-file", ca},
             {"--azure-call-timeout", "500ms"},
             {"--azure-requeue-after", "1s"},
             {"--metrics-bind-address", ""},
             {"--health-probe-bind-address", ""}}) {
      argv.push_back(flag);
      argv.push_back(value);
    }
    auto child = std::make_unique<Child>(argv);
    unsetenv("AZURE_CLIENT_SECRET");
    return child;
  }

  TestApiServer api_;
  testing::ScratchDir scratch_;
  std::unique_ptr<emulators::arm::ArmServer> arm_;
  std::unique_ptr<kube::Client> client_;
};

TEST_F(ControllerAzureWireTest, BringsAnAzureClusterToReadyThenStopsOnSigterm) {
  kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", std::string(NW_SOURCE_DIR) + "/examples/capz/cluster.yaml"});
  kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
           R"({"spec":{"replicas":1}})"});
  auto controller = startController();
  const std::string banner = controller->waitForLine("nodewright controller:", 30s);
  ASSERT_NE(banner, "") << "the controller did not start";
  EXPECT_NE(banner.find("cloud azure, ARM " + arm_->url()), std::string::npos) << banner;

  kube::Typed<api::capz::AzureCluster> clusters(*client_);
  const bool ready = eventually(
      [&] {
        auto cluster = clusters.get("default", kCluster);
        return cluster && cluster->status.ready;
      },
      60s);
  ASSERT_TRUE(ready) << "the AzureCluster is not Ready";
  auto cluster = clusters.get("default", kCluster);
  ASSERT_TRUE(cluster);
  EXPECT_TRUE(cluster->status.longRunningOperationStates.empty());

  // Machines are still being created: the stop must not wait for their operations.
  const auto stopAsked = std::chrono::steady_clock::now();
  controller->kill(SIGTERM);
  EXPECT_EQ(controller->wait(15s), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - stopAsked, 10s);
}

}  // namespace
}  // namespace nodewright::cmd
