#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cmd/azure_controller_set.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// The parts `nodewright up` wires for Cluster API on Azure, for end-to-end stories: the embedded
// API server, the ARM emulator over HTTPS (Entra client secret) and a runtime::Manager with
// cmd::AzureControllerSet. Each test starts the emulator with the latencies and time scale its
// story needs, then the controllers with the settings it measures.
namespace nodewright::e2e {

inline constexpr const char* kCapzClientId = "00000000-0000-0000-0000-00000000c0de";
inline constexpr const char* kCapzClientSecret = "capz-e2e-client-secret";

inline std::string sourcePath(const std::string& relative) {
  return std::string(NW_SOURCE_DIR) + "/" + relative;
}

// ARM resources alive in the emulator, operations not counted.
inline size_t liveArmResources(emulators::arm::ArmServer& arm) {
  size_t total = 0;
  for (const auto& [type, count] : arm.emulator().engine().store().liveCounts()) {
    if (type != emulators::arm::kOperationTable) {
      total += count;
    }
  }
  return total;
}

class CapzE2eTest : public ::testing::Test {
 protected:
  void TearDown() override {
    stopControllers();
    if (arm_) {
      arm_->stop();
    }
  }

  void startArm(emulators::arm::ArmEmulatorOptions options) {
    options.clientSecrets = {{kCapzClientId, kCapzClientSecret}};
    auto arm = emulators::arm::ArmServer::start(core::systemClock(), std::move(options));
    ASSERT_TRUE(arm) << arm.error().message();
    arm_ = std::move(*arm);
    client_ = kube::testing::clientFor(kube::testing::restConfigFor(api_));
    controllerClient_ = kube::testing::clientFor(kube::testing::restConfigFor(api_));
  }

  // `tune` adjusts the settings after the defaults every story shares: a call window shorter
  // than the emulator's Retry-After (at least 1 s), so every operation that is not instant parks
  // its future in status, and requeues of a second.
  void startControllers(const std::function<void(cmd::AzureControllerSetOptions&)>& tune = {}) {
    metrics_ = std::make_unique<runtime::Registry>();
    runtime::ManagerOptions managerOptions;
    managerOptions.metrics = metrics_.get();
    managerOptions.component = "capz";
    manager_ = std::make_unique<runtime::Manager>(*controllerClient_, managerOptions);
    cmd::AzureControllerSetOptions options;
    options.armEndpoint = arm_->url();
    options.caPem = arm_->caPem();
    options.tenantId = arm_->emulator().options().tenantId;
    options.clientId = kCapzClientId;
    options.clientSecret = kCapzClientSecret;
    options.lro.timeouts.call = std::chrono::milliseconds(500);
    options.lro.timeouts.requeue = std::chrono::seconds(1);
    options.azureClusters.waitRequeue = std::chrono::seconds(1);
    options.azureMachines.waitRequeue = std::chrono::seconds(1);
    if (tune) {
      tune(options);
    }
    auto set = cmd::AzureControllerSet::create(*manager_, core::systemClock(), std::move(options));
    ASSERT_TRUE(set) << set.error().message();
    controllers_ = std::move(*set);
    managerThread_ = std::jthread([this](std::stop_token stop) {
      auto ran = manager_->run(stop);
      EXPECT_TRUE(ran) << "controllers: " << ran.error().message();
    });
  }

  void stopControllers() {
    managerThread_ = {};
    controllers_.reset();
    manager_.reset();
  }

  std::string kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto ran = apiserver::testing::kubectl(api_, args, input);
    EXPECT_EQ(ran.code, 0) << "kubectl " << fmt::format("{}", fmt::join(args, " ")) << ": "
                           << ran.err;
    return ran.out;
  }

  template <class T>
  std::vector<T> list() {
    auto items = kube::Typed<T>(*client_).list("default");
    EXPECT_TRUE(items) << items.error().describe();
    return items ? *items : std::vector<T>{};
  }

  apiserver::testing::TestApiServer api_;
  std::unique_ptr<emulators::arm::ArmServer> arm_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<kube::Client> controllerClient_;
  std::unique_ptr<runtime::Registry> metrics_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<cmd::AzureControllerSet> controllers_;
  std::jthread managerThread_;
};

}  // namespace nodewright::e2e
