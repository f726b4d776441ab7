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
#include "api/capi/conditions.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/conditions.h"
#include "e2e/capz_fixture.h"
#include "kube/client.h"
#include "support/kube/objects.h"

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

constexpr const char* kName = "prod-westeurope";
constexpr auto kPatience = 40s;

// One status write of the AzureCluster as the watch saw it.
struct Snapshot {
  std::map<std::string, std::string> conditions;  // type -> "True" or "False/Reason"
  size_t futures = 0;
  bool ready = false;
};

// A transient call error (a request past its 2 s call timeout on a loaded machine) is written
// as Failed with Warning severity and retried, as the futures engine intends; the severity is
// kept so the test can tell it from a terminal failure (Error).
std::string stateOf(const api::capi::CapiCondition& condition) {
  if (condition.status == "True") {
    return "True";
  }
  std::string state = condition.status + "/" + condition.reason;
  if (condition.reason == api::capz::kFailedReason) {
    state += "/" + condition.severity + ": " + condition.message;
  }
  return state;
}

// Whether a condition state may precede True: in progress, or a retried transient error.
bool inProgressOrRetried(const std::string& state) {
  return state == std::string("False/") + api::capz::kCreatingReason ||
         state.starts_with(std::string("False/") + api::capz::kFailedReason + "/" +
                           api::capi::kSeverityWarning + ":");
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

class CapzStoryTest : public CapzE2eTest {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions armOptions;
    // A VM's 45 s take about a second; the clients still wait the emulator's Retry-After (at
    // least 1 s) between polls, which is what bounds the test's duration.
    armOptions.engine.timeScale = 50;
    startArm(std::move(armOptions));
  }
};

TEST_F(CapzStoryTest, NewcomerWatchesServicesProgressThenDeletesTheCluster) {
  namespace capz = api::capz;
  AzureClusterLog log(*client_);
  kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", sourcePath("examples/capz/cluster.yaml")});
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
    // Before True, only Creating or a retried transient error (or nothing, when the service
    // finished within one pass); never a terminal failure.
    for (size_t i = 0; i < *at; ++i) {
      auto it = seen[i].conditions.find(type);
      if (it != seen[i].conditions.end()) {
        EXPECT_TRUE(inProgressOrRetried(it->second))
            << type << " at write " << i << ": " << it->second;
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
