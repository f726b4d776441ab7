#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "api/capi/machine.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "e2e/capz_fixture.h"
#include "emulators/arm/types.h"
#include "support/build_flavor.h"

// Issue 10, story 2: scaling a MachineDeployment from 0 to 200 with concurrency 10 makes all 200
// AzureMachines VMCreating almost at once, because a reconcile parks the VM's 60 s operation as
// a future instead of waiting for it. The same controllers with an unbounded call timeout (the
// blocking variant) create ten VMs at a time. Simulated time is the emulator's: real time
// multiplied by its time scale, so a 60 s VM takes 15 s of the test.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using api::capi::Machine;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using kube::testing::eventually;
using Steady = std::chrono::steady_clock;

constexpr const char* kName = "prod-westeurope";
constexpr auto kVmCreate = 60s;
constexpr const char* kVmPutAction = "VirtualMachines_CreateOrUpdate";
// Real time spent on requests counts as simulated time multiplied by the scale; at 4 a
// machine's whole path to VMCreating may take 1.25 s of real time.
constexpr double kAsyncTimeScale = 4;

// The bounds are about the controllers, so they are asserted where the binary is optimised. An
// unoptimised sanitizer build runs some twenty times slower: there the same flow runs with fewer
// machines, to check it for memory errors, and the figures are only reported.
constexpr bool kBoundsAsserted = test_support::kOptimisedBuild;
constexpr int kMachines = kBoundsAsserted ? 200 : 40;

// When each AzureMachine was first seen, first VMCreating, and first ready, from a watch started
// before the scale-up.
class MachineTimeline {
 public:
  struct Times {
    Steady::time_point created;
    std::optional<Steady::time_point> creating;
    std::optional<Steady::time_point> ready;
  };

  explicit MachineTimeline(kube::Client& client)
      : thread_([this, &client](std::stop_token stop) { watch(client, stop); }) {}

  std::map<std::string, Times> times() const {
    std::lock_guard lock(mu_);
    return times_;
  }

  size_t creating() const {
    return countIf([](const Times& t) { return t.creating; });
  }
  size_t ready() const {
    return countIf([](const Times& t) { return t.ready; });
  }

 private:
  template <class Pred>
  size_t countIf(Pred pred) const {
    std::lock_guard lock(mu_);
    return std::count_if(times_.begin(), times_.end(),
                         [&](const auto& entry) { return bool(pred(entry.second)); });
  }

  void watch(kube::Client& client, std::stop_token stop) {
    const auto& kind = kube::kindOf<AzureMachine>(client.registry());
    kube::ListOptions options;
    options.timeoutSeconds = 600;
    options.allowWatchBookmarks = false;
    auto status = client.watch(
        kind, "default", options,
        [this](kube::WatchEvent&& event) {
          const auto* machine = event.object ? event.object->as<AzureMachine>() : nullptr;
          if (machine != nullptr) {
            record(*machine, Steady::now());
          }
          return true;
        },
        stop);
    if (!status && !stop.stop_requested()) {
      ADD_FAILURE() << "AzureMachine watch ended: " << status.error().describe();
    }
  }

  void record(const AzureMachine& machine, Steady::time_point now) {
    std::lock_guard lock(mu_);
    auto [it, added] = times_.try_emplace(machine.metadata.name, Times{now, {}, {}});
    Times& t = it->second;
    // VMCreating with the VM's PUT parked as a future: the create was sent and is running.
    const auto& status = machine.status;
    const bool creating =
        std::any_of(status.conditions.begin(), status.conditions.end(),
                    [](const auto& c) {
                      return c.type == "VMRunning" && c.status == "False" &&
                             c.reason == "VMCreating";
                    }) &&
        std::any_of(status.longRunningOperationStates.begin(),
                    status.longRunningOperationStates.end(), [](const api::capz::Future& f) {
                      return f.serviceName == "virtualmachine" && f.type == "PUT";
                    });
    if (creating && !t.creating) {
      t.creating = now;
    }
    if (machine.status.ready && !t.ready) {
      t.ready = now;
    }
  }

  mutable std::mutex mu_;
  std::map<std::string, Times> times_;
  std::jthread thread_;  // last: stops before the map goes
};

// Simulated seconds of a real span.
double simulated(Steady::duration real, double timeScale) {
  return std::chrono::duration<double>(real).count() * timeScale;
}

struct Figures {
  double worstToCreating = 0;  // simulated s, AzureMachine created -> VMCreating, worst machine
  double worstToReady = 0;     // simulated s, AzureMachine created -> ready, worst machine
  double allCreating = 0;      // simulated s, scale-up -> the last VMCreating
  double allReady = 0;         // simulated s, scale-up -> the last ready
};

class CapzScaleTest : public CapzE2eTest {
 protected:
  // Every Azure operation completes at once except the VM's create, which takes 60 s: the
  // story measures how VM creates overlap, not the cluster's infrastructure.
  void startWorld(double timeScale) {
    timeScale_ = timeScale;
    emulators::arm::ArmEmulatorOptions options;
    options.engine.timeScale = timeScale;
    // ARM's write limit (200, then 10 a second) alone spreads 400 NIC and VM PUTs over 20 s:
    // no controller could start 200 VMs within 5 s under it. The 429 story is
    // capz_faults_test.cc's.
    options.engine.faults.throttling = false;
    for (auto& [op, latency] : options.latencies) {
      latency = emulators::Latency::fixed({});
    }
    const auto* vm = emulators::arm::findType("Microsoft.Compute/virtualMachines");
    ASSERT_NE(vm, nullptr);
    options.latencies[emulators::arm::putOp(*vm)] = emulators::Latency::fixed(kVmCreate);
    startArm(std::move(options));
    kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
             "--from-literal=value=#cloud-config"});
    kubectl({"apply", "-f", sourcePath("examples/capz/cluster.yaml")});
    kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
             R"({"spec":{"replicas":0}})"});
  }

  void awaitClusterReady() {
    kube::Typed<AzureCluster> clusters(*client_);
    ASSERT_TRUE(eventually(
        [&] {
          auto cluster = clusters.get("default", kName);
          return cluster && cluster->status.ready;
        },
        60s))
        << "the AzureCluster is not Ready";
  }

  // Scales to kMachines and waits until every AzureMachine is ready.
  Figures scaleUp(const MachineTimeline& timeline, std::chrono::seconds patience) {
    const Steady::time_point scaled = Steady::now();
    kubectl({"patch", "machinedeployment", "prod-westeurope-md-0", "--type", "merge", "-p",
             fmt::format(R"({{"spec":{{"replicas":{}}}}})", kMachines)});
    const bool ready = eventually([&] { return timeline.ready() == size_t(kMachines); }, patience);
    EXPECT_TRUE(ready) << timeline.ready() << " of " << kMachines << " AzureMachines ready, "
                       << timeline.creating() << " seen VMCreating";
    Figures f;
    for (const auto& [name, t] : timeline.times()) {
      const Steady::time_point creating = t.creating.value_or(t.ready.value_or(scaled));
      const Steady::time_point ready = t.ready.value_or(Steady::now());
      f.worstToCreating = std::max(f.worstToCreating, simulated(creating - t.created, timeScale_));
      f.worstToReady = std::max(f.worstToReady, simulated(ready - t.created, timeScale_));
      f.allCreating = std::max(f.allCreating, simulated(creating - scaled, timeScale_));
      f.allReady = std::max(f.allReady, simulated(ready - scaled, timeScale_));
    }
    return f;
  }

  uint64_t vmPuts() {
    const auto stats = arm_->emulator().stats();
    const auto requests = stats.find("requests");
    if (requests == stats.end() || !requests->contains(kVmPutAction)) {
      return 0;
    }
    return (*requests)[kVmPutAction].value("count", uint64_t{0});
  }

  void report(const char* variant, const Figures& f) {
    const std::string line = fmt::format(
        "{}: {} machines, time scale {}: worst machine created->VMCreating {:.1f} s, "
        "created->ready {:.1f} s; scale-up->all VMCreating {:.1f} s, ->all ready {:.1f} s "
        "(simulated)",
        variant, kMachines, timeScale_, f.worstToCreating, f.worstToReady, f.allCreating,
        f.allReady);
    std::printf("%s\n", line.c_str());
    RecordProperty(variant, line);
  }

  double timeScale_ = 1;
};

TEST_F(CapzScaleTest, TwoHundredMachinesAllStartCreatingAtOnce) {
  startWorld(kAsyncTimeScale);
  // Concurrency 10 per kind and a 500 ms call window. Adaptive timeouts are off: at this time
  // scale a 60 s VM takes 6 s of real time, which they would take for a quick operation worth
  // waiting for.
  startControllers(
      [](cmd::AzureControllerSetOptions& options) { options.lro.adaptive.enabled = false; });
  awaitClusterReady();
  MachineTimeline timeline(*client_);
  const Figures f = scaleUp(timeline, kBoundsAsserted ? 120s : 300s);
  report("async", f);

  ASSERT_EQ(timeline.times().size(), size_t(kMachines));
  // A VM create never waits for another machine's: each AzureMachine shows VMCreating within 5 s
  // of appearing, and is ready within the VM's 60 s plus 10 s.
  EXPECT_EQ(timeline.creating(), size_t(kMachines)) << "machines that never showed VMCreating";
  if (kBoundsAsserted) {
    EXPECT_LE(f.worstToCreating, 5.0);
    EXPECT_LE(f.worstToReady, 70.0);
  }
  EXPECT_EQ(vmPuts(), uint64_t(kMachines)) << arm_->emulator().stats().dump();
  EXPECT_TRUE(eventually(
      [&] {
        const auto machines = list<Machine>();
        return std::all_of(machines.begin(), machines.end(),
                           [](const Machine& m) { return m.status.phase == "Running"; });
      },
      30s))
      << "Machines not Running after their AzureMachines are ready";

  // And all of it goes away again.
  kubectl({"delete", "cluster", kName, "--wait=false"});
  EXPECT_TRUE(eventually([&] { return liveArmResources(*arm_) == 0; }, 120s))
      << liveArmResources(*arm_) << " ARM resources left";
}

TEST_F(CapzScaleTest, BlockingVariantCreatesTenAtATime) {
  // One VM create takes a second here: the 20 rounds of ten (200 machines) take 20 s.
  startWorld(60);
  startControllers([](cmd::AzureControllerSetOptions& options) {
    // The call timeout is "infinity": every reconcile waits for its VM.
    options.lro.timeouts.call = 24h;
    options.lro.timeouts.service = 24h;
    options.lro.timeouts.reconcile = 24h;
    options.lro.adaptive.enabled = false;
  });
  awaitClusterReady();
  MachineTimeline timeline(*client_);
  const Figures f = scaleUp(timeline, 240s);
  report("blocking", f);

  ASSERT_EQ(timeline.ready(), size_t(kMachines));
  // Ten at a time, 60 s each: the last machine waits about kMachines / 10 rounds. Half of that
  // is the bound that holds however the rounds interleave.
  EXPECT_GE(f.worstToReady, kMachines / 10 / 2 * kVmCreate.count());
  EXPECT_EQ(vmPuts(), uint64_t(kMachines)) << arm_->emulator().stats().dump();
}

}  // namespace
}  // namespace nodewright::e2e
