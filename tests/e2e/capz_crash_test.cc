#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "e2e/capz_fixture.h"
#include "emulators/arm/model.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// Issue 10: "Kill -9 the controller 10 times at random during story 2 (scale a
// MachineDeployment 0 -> 200 with concurrency 10, VM create latency 60 s). Every restart resumes
// from the stored futures, with no duplicate PUTs per /admin/stats. Every machine ends Ready,
// and deleting everything afterwards leaves 0 resources in the emulator."
// The controller is the real binary (`nodewright controller --cloud azure`), SIGKILLed at
// seeded random moments while the 200 VMs are being created and started again each time.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using api::capi::Cluster;
using api::capi::Machine;
using api::capi::MachineDeployment;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using apiserver::testing::Child;
using kube::testing::eventually;

constexpr const char* kClientId = "00000000-0000-0000-0000-0000000c4a54";
constexpr const char* kClientSecret = "capz-crash-test-secret";
constexpr const char* kName = "prod-westeurope";
constexpr int kMachines = 200;
constexpr int kKills = 10;
// About 45 s of the test's run are spent in the release build; the margin is for ASan.
constexpr auto kPatience = 90s;

std::string binary() {
  const char* fromEnv = std::getenv("NW_BINARY");
  return fromEnv != nullptr && *fromEnv != '\0' ? fromEnv : NW_BINARY;
}

// A virtual machine's own id (not one of its extensions'), lower case as the stats keep it.
bool isVmId(const std::string& id) {
  static const std::string kVms = "/providers/microsoft.compute/virtualmachines/";
  const size_t at = id.find(kVms);
  return at != std::string::npos && id.find('/', at + kVms.size()) == std::string::npos;
}

// A member of a JSON object, or an empty object (the stats leave out what never happened).
const api::Json& member(const api::Json& object, const std::string& key) {
  static const api::Json kEmpty = api::Json::object();
  auto it = object.is_object() ? object.find(key) : object.end();
  return it == object.end() ? kEmpty : *it;
}

// Requests the emulator counted for `action` ("VirtualMachines_CreateOrUpdate").
int64_t requests(const api::Json& stats, const std::string& action) {
  return member(member(stats, "requests"), action).value("count", int64_t{0});
}

class CapzCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions options;
    // A VM's 60 s take 3 s.
    options.engine.timeScale = 20;
    options.latencies["arm:VirtualMachines_CreateOrUpdate"] =
        emulators::Latency::fixed(std::chrono::seconds(60));
    options.clientSecrets = {{kClientId, kClientSecret}};
    auto arm = emulators::arm::ArmServer::start(core::systemClock(), std::move(options));
    ASSERT_TRUE(arm) << arm.error().message();
    arm_ = std::move(*arm);
    client_ = kube::testing::clientFor(kube::testing::restConfigFor(api_));
    caFile_ = api_.dataDir() + "/arm-ca.pem";
    std::ofstream(caFile_) << arm_->caPem();
  }

  void TearDown() override {
    controller_.reset();
    if (arm_) {
      arm_->stop();
    }
  }

  // A fresh controller process; returns once it has started its manager.
  void startController() {
    setenv("AZURE_TENANT_ID", arm_->emulator().options().tenantId.c_str(), 1);
    setenv("AZURE_CLIENT_ID", kClientId, 1);
    setenv("AZURE_CLIENT_SECRET", kClientSecret, 1);
    unsetenv("AZURE_AUTHORITY_HOST");
    std::vector<std::string> argv = {binary(), "--log-level", "warn", "controller"};
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--cloud", "azure"},
             {"--kubeconfig", api_.kubeconfig()},
             {"--azure-resource-manager-endpoint", arm_->url()},
             {"--azure-authority-host", arm_->url()},
             {"--azure-ca-file", caFile_},
             {"--azure-call-timeout", "500ms"},
             {"--azure-requeue-after", "1s"},
             {"--metrics-bind-address", ""},
             {"--health-probe-bind-address", ""}}) {
      argv.push_back(flag);
      argv.push_back(value);
    }
    controller_ = std::make_unique<Child>(argv);
    unsetenv("AZURE_CLIENT_SECRET");
    ASSERT_NE(controller_->waitForLine("nodewright controller:", 30s), "")
        << "the controller did not start";
  }

  void killController() {
    controller_->kill(SIGKILL);
    EXPECT_EQ(controller_->wait(10s), 128 + SIGKILL);
    controller_.reset();
  }

  std::string kubectl(const std::vector<std::string>& args) {
    auto ran = apiserver::testing::kubectl(api_, args);
    EXPECT_EQ(ran.code, 0) << fmt::format("kubectl {}: {}", fmt::join(args, " "), ran.err);
    return ran.out;
  }

  template <class T>
  std::vector<T> list() {
    auto items = kube::Typed<T>(*client_).list("default");
    EXPECT_TRUE(items) << items.error().describe();
    return items ? *items : std::vector<T>{};
  }

  // Machines Running, AzureMachines ready.
  std::pair<int, int> readyCounts() {
    const auto machines = list<Machine>();
    const auto azureMachines = list<AzureMachine>();
    return {static_cast<int>(
                std::count_if(machines.begin(), machines.end(),
                              [](const Machine& m) { return m.status.phase == "Running"; })),
            static_cast<int>(std::count_if(azureMachines.begin(), azureMachines.end(),
                                           [](const AzureMachine& m) { return m.status.ready; }))};
  }

  apiserver::testing::TestApiServer api_;
  std::unique_ptr<emulators::arm::ArmServer> arm_;
  std::unique_ptr<kube::Client> client_;
  std::string caFile_;
  std::unique_ptr<Child> controller_;
};

TEST_F(CapzCrashTest, KilledTenTimesWhileScalingTo200ResumesWithoutDuplicatePuts) {
  const uint32_t seed = std::random_device{}();
  std::mt19937 random(seed);
  RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE(fmt::format("seed {}", seed));
  fmt::print("capz crash test seed {}\n", seed);

  kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", std::string(NW_SOURCE_DIR) + "/examples/capz/cluster.yaml"});
  kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
           R"({"spec":{"replicas":0}})"});
  ASSERT_NO_FATAL_FAILURE(startController());
  kube::Typed<AzureCluster> clusters(*client_);
  ASSERT_TRUE(eventually(
      [&] {
        auto cluster = clusters.get("default", kName);
        return cluster && cluster->status.ready;
      },
      kPatience))
      << "the AzureCluster is not Ready";

  kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
           fmt::format(R"({{"spec":{{"replicas":{}}}}})", kMachines)});
  // The kills land while VMs are being created: each after a random 0.3-2.5 s of the restarted
  // controller's run, which is shorter than a VM's 3 s.
  std::uniform_int_distribution<int> runFor(300, 2500);
  for (int kill = 0; kill < kKills; ++kill) {
    const auto delay = std::chrono::milliseconds(runFor(random));
    EXPECT_EQ(controller_->wait(delay), -1) << "the controller exited by itself";
    const auto [running, ready] = readyCounts();
    fmt::print("kill {} after {} ms: {} Machines Running, {} AzureMachines ready\n", kill + 1,
               delay.count(), running, ready);
    killController();
    ASSERT_NO_FATAL_FAILURE(startController());
  }
  std::pair<int, int> counts;
  ASSERT_TRUE(eventually(
      [&] {
        counts = readyCounts();
        return counts.first == kMachines && counts.second == kMachines;
      },
      2 * kPatience))
      << counts.first << " Machines Running, " << counts.second << " AzureMachines ready";

  // Exactly one PUT per VM, however many times the controller died: a restart finds the VMs
  // its predecessor began through the stored futures, or through the engine's GET before a PUT
  // when it died between sending the PUT and storing the future.
  const api::Json stats = arm_->emulator().stats();
  std::map<std::string, int64_t> repeated;  // resource id -> PUTs, for any resource put twice
  int64_t vms = 0;
  for (const auto& [id, n] : member(stats, "puts").items()) {
    if (isVmId(id)) {
      ++vms;
    }
    if (n.get<int64_t>() != 1) {
      repeated[id] = n.get<int64_t>();
    }
  }
  EXPECT_EQ(vms, kMachines);
  EXPECT_EQ(requests(stats, "VirtualMachines_CreateOrUpdate"), kMachines);
  // Nor any other resource: a restart that finds one its predecessor began but did not record
  // waits for its operation instead of taking it as done, so what depends on it (a VM's
  // extension) starts only afterwards; and a resource machines share (the availability set) is
  // created by one reconcile while the others wait for it.
  EXPECT_TRUE(repeated.empty()) << "resources PUT more than once: "
                                << fmt::format("{}", fmt::join(repeated, ", "));
  for (const char* action : {"NetworkInterfaces_CreateOrUpdate", "VirtualMachines_CreateOrUpdate",
                             "VirtualMachineExtensions_CreateOrUpdate"}) {
    EXPECT_EQ(requests(stats, action), kMachines)
        << action << ": " << member(stats, "requests").dump();
  }
  RecordProperty("repeatedPuts", fmt::format("{}", fmt::join(repeated, ", ")));

  // Deleting the Cluster takes everything with it, in Azure and in the API.
  kubectl({"delete", "cluster", kName, "--wait=false"});
  EXPECT_TRUE(eventually([&] { return liveArmResources(*arm_) == 0; }, kPatience))
      << liveArmResources(*arm_) << " ARM resources left";
  EXPECT_TRUE(eventually(
      [&] {
        return list<Cluster>().empty() && list<AzureCluster>().empty() && list<Machine>().empty() &&
               list<AzureMachine>().empty() && list<MachineDeployment>().empty();
      },
      kPatience))
      << "Cluster API objects are left";
}

}  // namespace
}  // namespace nodewright::e2e
