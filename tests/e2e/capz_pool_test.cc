#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "api/capi/machine_pool.h"
#include "api/capz/azure_machine_pool.h"
#include "api/capz/conditions.h"
#include "e2e/capz_fixture.h"
#include "kube/client.h"
#include "support/kube/objects.h"

// Issue 10, story 3: "Delete an AzureMachinePoolMachine. Its condition shows Deleting within
// 2 s and the instance is gone when the operation ends." With `nodewright up`'s parts: the
// embedded API server, the ARM emulator over HTTPS (Entra client secret) and a
// runtime::Manager with cmd::AzureControllerSet.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using api::capi::MachinePool;
using api::capz::AzureMachinePool;
using api::capz::AzureMachinePoolMachine;
using kube::testing::eventually;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kPool = "capz-pool-mp-0";
constexpr int kReplicas = 3;
constexpr auto kPatience = 60s;
constexpr double kTimeScale = 50;
// An instance's delete lasts 4 s at this time scale: long enough to see it run.
constexpr auto kInstanceDelete = std::chrono::seconds(200);
constexpr auto kDeletingWithin = 2s;
// The condition of a pool machine's instance (CAPZ's VMRunningCondition).
constexpr const char* kVMRunning = "VMRunning";

std::string reasonOf(const AzureMachinePoolMachine& machine, const std::string& type) {
  for (const auto& c : machine.status.conditions) {
    if (c.type == type) {
      return c.status == "True" ? "True" : c.status + "/" + c.reason;
    }
  }
  return "";
}

// When one AzureMachinePoolMachine's VMRunning condition first said Deleting, and when the
// object went, from a watch started before the delete.
class PoolMachineLog {
 public:
  PoolMachineLog(kube::Client& client, std::string name)
      : name_(std::move(name)),
        thread_([this, &client](std::stop_token stop) { watch(client, stop); }) {}

  std::optional<SteadyTime> deletingAt() const {
    std::lock_guard lock(mu_);
    return deletingAt_;
  }
  std::optional<SteadyTime> goneAt() const {
    std::lock_guard lock(mu_);
    return goneAt_;
  }
  std::vector<std::string> history() const {
    std::lock_guard lock(mu_);
    return history_;
  }
  bool started() const {
    std::lock_guard lock(mu_);
    return started_;
  }

 private:
  void watch(kube::Client& client, std::stop_token stop) {
    const auto& kind = kube::kindOf<AzureMachinePoolMachine>(client.registry());
    kube::ListOptions options;
    options.timeoutSeconds = 120;
    options.allowWatchBookmarks = false;
    auto status = client.watch(
        kind, "default", options,
        [this](kube::WatchEvent&& event) {
          const auto now = std::chrono::steady_clock::now();
          const auto* machine =
              event.object ? event.object->as<AzureMachinePoolMachine>() : nullptr;
          std::lock_guard lock(mu_);
          started_ = true;
          if (machine == nullptr || machine->metadata.name != name_) {
            return true;
          }
          const std::string state = reasonOf(*machine, kVMRunning);
          if (history_.empty() || history_.back() != state) {
            history_.push_back(state);
          }
          if (!deletingAt_ && state == std::string("False/") + api::capz::kDeletingReason) {
            deletingAt_ = now;
          }
          if (event.type == kube::WatchEventType::Deleted) {
            goneAt_ = now;
          }
          return true;
        },
        stop);
    if (!status && !stop.stop_requested()) {
      ADD_FAILURE() << "AzureMachinePoolMachine watch ended: " << status.error().describe();
    }
  }

  const std::string name_;
  mutable std::mutex mu_;
  bool started_ = false;
  std::optional<SteadyTime> deletingAt_;
  std::optional<SteadyTime> goneAt_;
  std::vector<std::string> history_;
  std::jthread thread_;  // last: stops before the log goes
};

class CapzPoolStoryTest : public CapzE2eTest {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions armOptions;
    armOptions.engine.timeScale = kTimeScale;
    armOptions.latencies["arm:VirtualMachineScaleSetVMs_Delete"] =
        emulators::Latency::fixed(kInstanceDelete);
    startArm(std::move(armOptions));
  }

  void startPoolControllers() {
    startControllers([](cmd::AzureControllerSetOptions& options) {
      options.azureMachinePools.requeue = 1s;
      options.azureMachinePoolMachines.requeue = 1s;
    });
  }

  // ARM's answer to a GET of `id` ("azure://" stripped), as the controllers' principal.
  int armGetStatus(std::string id) {
    if (id.starts_with("azure://")) {
      id = id.substr(std::string("azure://").size());
    }
    http::Request request;
    request.method = "GET";
    request.path = id;
    request.query.emplace("api-version", "2024-07-01");
    request.headers["authorization"] =
        "Bearer " +
        arm_->emulator().identity().issue(kCapzClientId, "https://management.azure.com/", 1h);
    return arm_->emulator().serve(request).status;
  }
};

bool allRunning(const std::vector<AzureMachinePoolMachine>& machines) {
  return std::all_of(machines.begin(), machines.end(), [](const AzureMachinePoolMachine& m) {
    return m.status.ready && reasonOf(m, kVMRunning) == "True" && !m.metadata.deletionTimestamp;
  });
}

TEST_F(CapzPoolStoryTest, DeletingAPoolMachineShowsDeletingThenTheInstanceIsGone) {
  kubectl({"create", "secret", "generic", "capz-pool-mp-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", sourcePath("tests/e2e/testdata/capz_pool.yaml")});
  startPoolControllers();

  // The scale set runs its three instances, each with its AzureMachinePoolMachine.
  ASSERT_TRUE(eventually(
      [&] {
        const auto machines = list<AzureMachinePoolMachine>();
        return machines.size() == kReplicas && allRunning(machines);
      },
      kPatience))
      << "the pool's machines are not running: "
      << kubectl({"get", "azuremachinepools,azuremachinepoolmachines,machinepools", "-o", "wide"});
  std::vector<AzureMachinePoolMachine> before = list<AzureMachinePoolMachine>();
  std::sort(before.begin(), before.end(),
            [](const auto& a, const auto& b) { return a.spec.instanceID < b.spec.instanceID; });
  const AzureMachinePoolMachine victim = before.front();
  ASSERT_FALSE(victim.spec.providerID.empty());
  ASSERT_EQ(armGetStatus(victim.spec.providerID), 200) << victim.spec.providerID;

  PoolMachineLog log(*client_, victim.metadata.name);
  ASSERT_TRUE(eventually([&] { return log.started(); }, 10s)) << "the watch saw nothing";
  const SteadyTime deletedAt = std::chrono::steady_clock::now();
  kubectl({"delete", "azuremachinepoolmachine", victim.metadata.name, "--wait=false"});

  // Deleting shows while ARM still has the instance.
  ASSERT_TRUE(eventually([&] { return log.deletingAt().has_value(); }, 10s))
      << "VMRunning never said Deleting: " << fmt::format("{}", fmt::join(log.history(), " -> "));
  const auto deletingAfter =
      std::chrono::duration_cast<std::chrono::milliseconds>(*log.deletingAt() - deletedAt);
  RecordProperty("deleting_after_ms", std::to_string(deletingAfter.count()));
  EXPECT_LE(deletingAfter, kDeletingWithin);
  EXPECT_EQ(armGetStatus(victim.spec.providerID), 200)
      << "the instance was gone before Deleting showed, so nothing was observed while it ran";

  // The operation ends: the instance is gone from ARM and its machine from the API.
  ASSERT_TRUE(eventually([&] { return log.goneAt().has_value(); }, kPatience))
      << "the AzureMachinePoolMachine was not deleted; VMRunning: "
      << fmt::format("{}", fmt::join(log.history(), " -> "));
  const auto goneAfter =
      std::chrono::duration_cast<std::chrono::milliseconds>(*log.goneAt() - deletedAt);
  RecordProperty("gone_after_ms", std::to_string(goneAfter.count()));
  EXPECT_EQ(armGetStatus(victim.spec.providerID), 404) << victim.spec.providerID;
  // The finalizer went only once ARM had removed the instance: no earlier than its delete.
  EXPECT_GE(
      goneAfter,
      std::chrono::duration_cast<std::chrono::milliseconds>(kInstanceDelete / kTimeScale) - 500ms);

  // CAPZ keeps the scale set at the MachinePool's replicas: the delete left it one short, so
  // the pool scales back up with a new instance (a new id; ids are never reused) and its
  // providerIDList and replicas, and the MachinePool's copies, no longer name the deleted one.
  ASSERT_TRUE(eventually(
      [&] {
        auto pool = kube::Typed<AzureMachinePool>(*client_).get("default", kPool);
        auto owner = kube::Typed<MachinePool>(*client_).get("default", kPool);
        if (!pool || !owner) {
          return false;
        }
        const auto& ids = pool->spec.providerIDList;
        const std::set<std::string> mine(ids.begin(), ids.end());
        const std::set<std::string> copied(owner->spec.providerIDList.begin(),
                                           owner->spec.providerIDList.end());
        const auto machines = list<AzureMachinePoolMachine>();
        return ids.size() == kReplicas && !mine.contains(victim.spec.providerID) &&
               pool->status.replicas == kReplicas && pool->status.ready && copied == mine &&
               machines.size() == kReplicas && allRunning(machines);
      },
      kPatience))
      << kubectl({"get", "azuremachinepools,azuremachinepoolmachines,machinepools", "-o", "yaml"});
  std::set<std::string> names;
  for (const auto& machine : list<AzureMachinePoolMachine>()) {
    names.insert(machine.metadata.name);
    EXPECT_NE(machine.spec.instanceID, victim.spec.instanceID);
    EXPECT_EQ(armGetStatus(machine.spec.providerID), 200) << machine.spec.providerID;
  }
  EXPECT_FALSE(names.contains(victim.metadata.name));
  EXPECT_EQ(names.size(), static_cast<size_t>(kReplicas));
}

}  // namespace
}  // namespace nodewright::e2e
