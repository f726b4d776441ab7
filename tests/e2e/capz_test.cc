#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/conditions.h"
#include "cmd/azure_controller_set.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// Issue 10, story 1: a newcomer applies examples/capz/cluster.yaml with kubectl and watches the
// AzureCluster's per-service conditions and futures progress, in dependency order, to Ready;
// the workers run with azure:/// provider ids; deleting the Cluster leaves nothing in Azure.
// The parts are those `nodewright up` wires: the embedded API server, the ARM emulator over
// HTTPS (Entra client secret), and a runtime::Manager with cmd::AzureControllerSet.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using api::capi::Cluster;
using api::capi::Machine;
using api::capi::MachineDeployment;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using kube::testing::eventually;

constexpr const char* kClientId = "00000000-0000-0000-0000-00000000c0de";
constexpr const char* kClientSecret = "capz-e2e-client-secret";
constexpr const char* kName = "prod-westeurope";
constexpr auto kPatience = 40s;

std::string source(const std::string& relative) {
  return std::string(NW_SOURCE_DIR) + "/" + relative;
}

// One status write of the AzureCluster as the watch saw it.
struct Snapshot {
  std::map<std::string, std::string> conditions;  // type -> "True" or "False/Reason"
  size_t futures = 0;
  bool ready = false;
};

std::string stateOf(const api::capi::CapiCondition& condition) {
  return condition.status == "True" ? "True" : condition.status + "/" + condition.reason;
}

// Every AzureCluster write, in the API server's order, from a watch started before the
// controllers.
class AzureClusterLog {
 public:
  explicit AzureClusterLog(kube::Client& client)
      : thread_([this, &client](std::stop_token stop) { watch(client, stop); }) {}

  std::vector<Snapshot> snapshots() const {
    std::lock_guard lock(mu_);
    return snapshots_;
  }

 private:
  void watch(kube::Client& client, std::stop_token stop) {
    const auto& kind = kube::kindOf<AzureCluster>(client.registry());
    kube::ListOptions options;
    options.timeoutSeconds = 120;
    options.allowWatchBookmarks = false;
    auto status = client.watch(
        kind, "default", options,
        [this](kube::WatchEvent&& event) {
          const AzureCluster* cluster = event.object ? event.object->as<AzureCluster>() : nullptr;
          if (cluster == nullptr || cluster->metadata.name != kName) {
            return true;
          }
          Snapshot snapshot;
          for (const auto& condition : cluster->status.conditions) {
            snapshot.conditions[condition.type] = stateOf(condition);
          }
          snapshot.futures = cluster->status.longRunningOperationStates.size();
          snapshot.ready = cluster->status.ready;
          std::lock_guard lock(mu_);
          snapshots_.push_back(std::move(snapshot));
          return true;
        },
        stop);
    if (!status && !stop.stop_requested()) {
      ADD_FAILURE() << "AzureCluster watch ended: " << status.error().describe();
    }
  }

  mutable std::mutex mu_;
  std::vector<Snapshot> snapshots_;
  std::jthread thread_;  // last: stops before the log goes
};

// Index of the first snapshot where `type` is True; nullopt when it never is.
std::optional<size_t> firstTrue(const std::vector<Snapshot>& log, const std::string& type) {
  for (size_t i = 0; i < log.size(); ++i) {
    auto it = log[i].conditions.find(type);
    if (it != log[i].conditions.end() && it->second == "True") {
      return i;
    }
  }
  return std::nullopt;
}

// Index of the first snapshot that carries `type` at all.
std::optional<size_t> firstSeen(const std::vector<Snapshot>& log, const std::string& type) {
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].conditions.count(type)) {
      return i;
    }
  }
  return std::nullopt;
}

// The distinct successive states of one condition, for messages.
std::string historyOf(const std::vector<Snapshot>& log, const std::string& type) {
  std::vector<std::string> states;
  for (const Snapshot& s : log) {
    auto it = s.conditions.find(type);
    if (it != s.conditions.end() && (states.empty() || states.back() != it->second)) {
      states.push_back(it->second);
    }
  }
  return fmt::format("{}", fmt::join(states, " -> "));
}

size_t liveArmResources(emulators::arm::ArmServer& arm) {
  size_t total = 0;
  for (const auto& [type, count] : arm.emulator().engine().store().liveCounts()) {
    if (type != emulators::arm::kOperationTable) {
      total += count;
    }
  }
  return total;
}

class CapzStoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions armOptions;
    // A VM's 45 s take about a second; the clients still wait the emulator's Retry-After (at
    // least 1 s) between polls, which is what bounds the test's duration.
    armOptions.engine.timeScale = 50;
    armOptions.clientSecrets = {{kClientId, kClientSecret}};
    auto arm = emulators::arm::ArmServer::start(core::systemClock(), std::move(armOptions));
    ASSERT_TRUE(arm) << arm.error().message();
    arm_ = std::move(*arm);
    client_ = kube::testing::clientFor(kube::testing::restConfigFor(api_));
    controllerClient_ = kube::testing::clientFor(kube::testing::restConfigFor(api_));
  }

  void TearDown() override {
    managerThread_ = {};
    controllers_.reset();
    manager_.reset();
    if (arm_) {
      arm_->stop();
    }
  }

  void startControllers() {
    metrics_ = std::make_unique<runtime::Registry>();
    runtime::ManagerOptions managerOptions;
    managerOptions.metrics = metrics_.get();
    managerOptions.component = "capz";
    manager_ = std::make_unique<runtime::Manager>(*controllerClient_, managerOptions);
    cmd::AzureControllerSetOptions options;
    options.armEndpoint = arm_->url();
    options.caPem = arm_->caPem();
    options.tenantId = arm_->emulator().options().tenantId;
    options.clientId = kClientId;
    options.clientSecret = kClientSecret;
    // A call window shorter than the emulator's Retry-After: every operation that is not
    // instant parks its future in status, as a real VM's or NAT gateway's would.
    options.lro.timeouts.call = 500ms;
    options.lro.timeouts.requeue = 1s;
    options.azureClusters.waitRequeue = 1s;
    options.azureMachines.waitRequeue = 1s;
    auto set = cmd::AzureControllerSet::create(*manager_, core::systemClock(), std::move(options));
    ASSERT_TRUE(set) << set.error().message();
    controllers_ = std::move(*set);
    managerThread_ = std::jthread([this](std::stop_token stop) {
      auto ran = manager_->run(stop);
      EXPECT_TRUE(ran) << "controllers: " << ran.error().message();
    });
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

TEST_F(CapzStoryTest, NewcomerWatchesServicesProgressThenDeletesTheCluster) {
  namespace capz = api::capz;
  AzureClusterLog log(*client_);
  kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", source("examples/capz/cluster.yaml")});
  // Three workers instead of the example's twenty, before any controller sees the twenty.
  kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
           R"({"spec":{"replicas":3}})"});
  startControllers();

  // The cluster's infrastructure, service by service, to Ready.
  kube::Typed<Cluster> clusters(*client_);
  ASSERT_TRUE(eventually(
      [&] {
        auto cluster = clusters.get("default", kName);
        return cluster && cluster->status.phase == "Provisioned";
      },
      kPatience))
      << "the Cluster is not Provisioned";
  ASSERT_TRUE(eventually(
      [&] {
        const auto snapshots = log.snapshots();
        return !snapshots.empty() && snapshots.back().ready && snapshots.back().futures == 0;
      },
      kPatience));
  const std::vector<Snapshot> seen = log.snapshots();
  const std::vector<std::string> services = {
      capz::kResourceGroupReadyCondition,  capz::kVNetReadyCondition,
      capz::kSecurityGroupsReadyCondition, capz::kRouteTablesReadyCondition,
      capz::kNATGatewaysReadyCondition,    capz::kSubnetsReadyCondition,
      capz::kLoadBalancersReadyCondition};
  std::string story;
  for (const std::string& type : services) {
    story += type + ": " + historyOf(seen, type) + "\n";
  }
  SCOPED_TRACE(story);
  RecordProperty("conditions", story);
  std::map<std::string, size_t> trueAt;
  for (const std::string& type : services) {
    auto at = firstTrue(seen, type);
    ASSERT_TRUE(at) << type << " never became True";
    trueAt[type] = *at;
    // Before True, only Creating (or nothing, when the service finished within one pass).
    for (size_t i = 0; i < *at; ++i) {
      auto it = seen[i].conditions.find(type);
      if (it != seen[i].conditions.end()) {
        EXPECT_EQ(it->second, std::string("False/") + capz::kCreatingReason)
            << type << " at write " << i;
      }
    }
    EXPECT_EQ(seen.back().conditions.at(type), "True") << type;
  }
  // Futures were parked in status while operations ran, and none is left.
  const bool parked =
      std::any_of(seen.begin(), seen.end(), [](const Snapshot& s) { return s.futures > 0; });
  EXPECT_TRUE(parked) << "no future ever appeared in status.longRunningOperationStates";
  EXPECT_EQ(seen.back().futures, 0u);
  EXPECT_EQ(seen.back().conditions.at("Ready"), "True");
  // The dependency graph: a service starts (its condition appears) only once what it needs is
  // True, so it is also True no earlier.
  const auto after = [&](const std::string& dependent, const std::string& dependency) {
    auto started = firstSeen(seen, dependent);
    ASSERT_TRUE(started) << dependent;
    EXPECT_GE(*started, trueAt[dependency]) << dependent << " started before " << dependency;
    EXPECT_GT(trueAt[dependent], trueAt[dependency]) << dependent << " vs " << dependency;
  };
  after(capz::kVNetReadyCondition, capz::kResourceGroupReadyCondition);
  for (const char* dependency :
       {capz::kVNetReadyCondition, capz::kSecurityGroupsReadyCondition,
        capz::kRouteTablesReadyCondition, capz::kNATGatewaysReadyCondition}) {
    after(capz::kSubnetsReadyCondition, dependency);
  }
  for (const std::string& other : services) {
    if (other != capz::kLoadBalancersReadyCondition) {
      EXPECT_GE(trueAt[capz::kLoadBalancersReadyCondition], trueAt[other])
          << "LoadBalancersReady before " << other;
    }
  }

  // The workers: three Machines Running on Azure VMs.
  ASSERT_TRUE(eventually(
      [&] {
        const auto machines = list<Machine>();
        return machines.size() == 3 &&
               std::all_of(machines.begin(), machines.end(),
                           [](const Machine& m) { return m.status.phase == "Running"; });
      },
      kPatience))
      << "the 3 Machines are not Running";
  for (const Machine& machine : list<Machine>()) {
    ASSERT_TRUE(machine.spec.providerID) << machine.metadata.name;
    EXPECT_TRUE(machine.spec.providerID->starts_with("azure:///subscriptions/"))
        << *machine.spec.providerID;
  }
  EXPECT_GT(liveArmResources(*arm_), 0u);

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
      << "Cluster API objects are left: "
      << kubectl({"get",
                  "clusters,azureclusters,machines,"
                  "azuremachines,machinedeployments"});
}

}  // namespace
}  // namespace nodewright::e2e
