#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "controllers/interruption/controller.h"
#include "one_pod_per_node.h"
#include "support/build_flavor.h"
#include "support/e2e/cluster.h"
#include "support/emulators/ec2_fixture.h"
#include "support/kube/objects.h"

// Crash safety of interruption handling: `nodewright controller` reads the EC2 emulator's SQS
// queue and is killed with SIGKILL while notices are in flight. Rounds of spot interruptions:
//   - in the first, the controller is dead when EC2 sends the notices, and a receiver that dies
//     holding them (this test, receiving and never deleting) leaves them hidden for the
//     visibility timeout, as a controller killed between ReceiveMessage and DeleteMessage does;
//   - in the others, the controller is killed at a random moment just after EC2 sends them.
// Whatever it was doing, no notice is lost (each interrupted NodeClaim is deleted before EC2
// terminates its instance, which only its notice can cause, and the queue drains), none acts twice
// (at most one TerminatingOnInterruption per claim, each instance launched once), and no
// replacement leaks (the cluster settles with exactly one NodeClaim per pod, every machine
// owned by one).
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using testing::EmbeddedCluster;
using testing::testdata;

constexpr double kTimeScale = 10;  // notice 2 emulated minutes = 12 s; visibility 30 s = 3 s
constexpr int kReplicas = 6;
constexpr const char* kQueue = "nodewright";

// Events' involved object names and reasons, with their counts summed (repeats are one Event).
std::map<std::pair<std::string, std::string>, int> eventCounts(EmbeddedCluster& cluster) {
  std::istringstream lines(cluster.kubectl(
      {"get", "events", "-A", "-o",
       "jsonpath={range .items[*]}{.involvedObject.name} {.reason} {.count}{\"\\n\"}{end}"}));
  std::map<std::pair<std::string, std::string>, int> out;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    std::string reason;
    int count = 1;
    fields >> name >> reason;
    if (!(fields >> count)) {
      count = 1;
    }
    out[{name, reason}] += count;
  }
  return out;
}

TEST(InterruptionCrashSafety, KilledWithNoticesInFlightLosesNoneAndActsOnce) {
  emulators::ec2::Ec2EmulatorOptions options;
  options.engine.timeScale = kTimeScale;
  auto ec2 = emulators::testing::startEc2(core::systemClock(), std::move(options));
  ASSERT_TRUE(ec2) << ec2.error().message();
  auto& sqs = (*ec2)->emulator().sqs();
  ASSERT_TRUE(sqs.create(kQueue, {}));
  const std::string endpoint = (*ec2)->url();

  EmbeddedCluster cluster({.awsEndpoint = endpoint});
  const std::vector<std::string> args = {"--interruption-queue", kQueue,         "--sqs-endpoint",
                                         endpoint,               "--gc-interval", "2",
                                         "--gc-grace",           "5"};
  cluster.startControllerProcess(args);
  cluster.kubectl({"apply", "-f", testdata("ec2nodeclass.yaml")});
  cluster.kubectl({"apply", "-f", "-"}, largeNodePool("spot"));
  cluster.kubectl({"apply", "-f", "-"}, onePodPerNode(kReplicas));
  ASSERT_TRUE(
      kube::testing::eventually([&] { return testing::allPodsRunning(cluster, kReplicas); }, 90s))
      << "the workload never ran";

  auto& interrupter = (*ec2)->emulator().interrupter();
  std::mt19937 random(20261129);  // random kill points, reproducible
  std::uniform_int_distribution<int> pause(0, 400);
  std::map<std::string, std::string> interrupted;  // instance id -> NodeClaim
  int abandoned = 0;
  core::TimePoint::duration slowest{0};  // from a warning to its claim's deletion, real time
  for (int round = 0; round < 4; ++round) {
    // Two running claims not interrupted before.
    std::vector<std::string> ids;
    for (const auto& claim : cluster.nodeClaims()) {
      const std::string id = controllers::interruption::machineIdOf(claim.status.providerID);
      if (claim.status.providerID.empty() || claim.metadata.deletionTimestamp ||
          interrupted.contains(id) || ids.size() == 2) {
        continue;
      }
      ids.push_back(id);
      interrupted[id] = claim.metadata.name;
    }
    ASSERT_EQ(ids.size(), 2U) << "round " << round << " found no two claims to interrupt";
    emulators::ec2::InterruptionFault fault;
    fault.queue = kQueue;
    fault.instances = ids;
    if (round == 0) {
      cluster.killControllerProcess();
      interrupter.setFault(fault);
      // A receiver that dies holding the notices: they stay hidden for the visibility timeout.
      // (The killed controller's long poll may hold them first; they come back to this one.)
      std::set<std::string> taken;
      ASSERT_TRUE(kube::testing::eventually(
          [&] {
            auto got = sqs.receive(kQueue, {.maxMessages = 10, .waitSeconds = 0});
            for (const auto& m : got ? *got : std::vector<emulators::ec2::SqsReceived>{}) {
              taken.insert(m.messageId);
            }
            return taken.size() >= ids.size();
          },
          10s))
          << "the interruption notices never reached the queue";
      abandoned = static_cast<int>(taken.size());
      cluster.startControllerProcess(args);
    } else {
      interrupter.setFault(fault);
      std::this_thread::sleep_for(std::chrono::milliseconds(pause(random)));  // the kill point
      cluster.killControllerProcess();
      cluster.startControllerProcess(args);
    }
    // Handled through the notices: both claims are deleted before EC2 terminates their
    // instances (neither garbage collection nor the terminated state change comes earlier).
    auto going = [&](const std::string& id) {
      for (const auto& claim : cluster.nodeClaims()) {
        if (claim.metadata.name == interrupted[id]) {
          return claim.metadata.deletionTimestamp.has_value();
        }
      }
      return true;
    };
    ASSERT_TRUE(kube::testing::eventually(
        [&] { return std::all_of(ids.begin(), ids.end(), going); }, 60s))
        << "round " << round << ": an interrupted claim was never deleted";
    const core::TimePoint handled = core::systemClock().now();
    for (const auto& r : interrupter.interruptions()) {
      if (std::find(ids.begin(), ids.end(), r.instanceId) != ids.end()) {
        // A sanitizer build's slowness is multiplied by the emulated clock: reported only.
        if (test_support::kOptimisedBuild) {
          EXPECT_LT(handled, r.terminateAt)
              << "round " << round << ": " << r.instanceId << "'s notice was acted on only "
              << std::chrono::duration<double>(handled - r.terminateAt).count()
              << " s after EC2 terminated it";
        }
        slowest = std::max(slowest, handled - r.warned);
      }
    }
    // The next round starts once this one's pods run again, so it has claims to pick from.
    ASSERT_TRUE(kube::testing::eventually(
        [&] { return testing::allPodsRunning(cluster, kReplicas); }, 90s))
        << "round " << round << ": the workload did not recover";
  }
  interrupter.setFault(std::nullopt);

  // Every notice handled and deleted: the interrupted instances are terminated (their state
  // changes were sent too) and the queue is empty.
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto records = interrupter.interruptions();
        return std::all_of(records.begin(), records.end(),
                           [](const auto& r) { return r.terminated; }) &&
               sqs.depth(kQueue) == 0;
      },
      60s))
      << "notices stayed on the queue: " << sqs.depth(kQueue);

  // The cluster settles: one claim per pod, every machine owned by a claim.
  std::map<std::string, std::string> claimOf;  // provider ID -> NodeClaim
  ASSERT_TRUE(kube::testing::eventually(
      [&] {
        auto claims = cluster.nodeClaims();
        if (claims.size() != kReplicas || !testing::allPodsRunning(cluster, kReplicas)) {
          return false;
        }
        auto machines = cluster.agentStack().provider().list();
        if (!machines) {
          return false;
        }
        std::set<std::string> names;
        for (const auto& claim : claims) {
          names.insert(claim.metadata.name);
        }
        claimOf.clear();
        for (const auto& m : *machines) {
          if (!names.contains(m.nodeClaimName)) {
            return false;
          }
          claimOf[m.providerID] = m.nodeClaimName;
        }
        return claimOf.size() == kReplicas;
      },
      60s))
      << "the cluster did not settle to one machine per pod";

  // Each NodeClaim launched once, interrupted ones included.
  auto everLaunched =
      cluster.agentStack().ec2().describeInstances({}, {{"tag-key", {"karpenter.sh/nodeclaim"}}});
  ASSERT_TRUE(everLaunched) << everLaunched.error().message;
  std::map<std::string, int> launchesPerClaim;
  for (const auto& instance : *everLaunched) {
    ++launchesPerClaim[instance.tags.at("karpenter.sh/nodeclaim")];
  }
  for (const auto& [claim, count] : launchesPerClaim) {
    EXPECT_EQ(count, 1) << "NodeClaim " << claim << " was launched " << count << " times";
  }

  // Each interrupted claim was handled through its notice, once.
  const auto events = eventCounts(cluster);
  auto count = [&](const std::string& name, const std::string& reason) {
    auto it = events.find({name, reason});
    return it == events.end() ? 0 : it->second;
  };
  // A kill may lose an event not yet posted, never add one: counts are at most what happened.
  int warnings = 0;
  for (const auto& [id, claim] : interrupted) {
    warnings += count(claim, "SpotInterrupted");
    EXPECT_LE(count(claim, "TerminatingOnInterruption"), 1) << claim << " was deleted twice";
  }
  std::cout << fmt::format(
      "figures: {} interruptions in 4 rounds with a kill each; {} notices abandoned in flight "
      "and redelivered; {} SpotInterrupted events (a redelivery after a kill adds one); slowest "
      "warning-to-deletion {:.1f} emulated s (notice 120 s); {} instances launched in all\n",
      interrupted.size(), abandoned, warnings,
      std::chrono::duration<double>(slowest).count() * kTimeScale, everLaunched->size());
  (*ec2)->stop();
}

}  // namespace
}  // namespace nodewright::e2e
