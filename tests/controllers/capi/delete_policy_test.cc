#include "controllers/capi/delete_policy.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>

#include "controllers/capi/well_known.h"

// Which Machines a MachineSet removes first.
namespace nodewright::controllers::capi {
namespace {

using api::capi::Machine;

Machine machine(const std::string& name, int createdSecondsAgo, bool ready) {
  Machine m;
  m.metadata.name = name;
  m.metadata.creationTimestamp =
      core::Time(core::TimePoint(std::chrono::seconds(1'700'000'000 - createdSecondsAgo)));
  if (ready) {
    api::capi::CapiCondition condition;
    condition.type = "Ready";
    condition.status = "True";
    m.status.conditions.push_back(condition);
  }
  return m;
}

std::vector<std::string> names(const std::vector<Machine>& machines) {
  std::vector<std::string> out;
  for (const auto& m : machines) {
    out.push_back(m.metadata.name);
  }
  return out;
}

TEST(DeletePolicyTest, NewestTakesTheYoungestHealthyMachines) {
  auto chosen = machinesToDelete(
      {machine("old", 300, true), machine("mid", 200, true), machine("young", 100, true)}, 2,
      kNewestDeletePolicy);
  EXPECT_EQ(names(chosen), (std::vector<std::string>{"young", "mid"}));
}

TEST(DeletePolicyTest, OldestTakesTheOldestHealthyMachines) {
  auto chosen = machinesToDelete(
      {machine("old", 300, true), machine("mid", 200, true), machine("young", 100, true)}, 1,
      kOldestDeletePolicy);
  EXPECT_EQ(names(chosen), (std::vector<std::string>{"old"}));
}

TEST(DeletePolicyTest, NotReadyAndFailedMachinesGoBeforeHealthyOnesUnderEveryPolicy) {
  for (const char* policy : {kRandomDeletePolicy, kNewestDeletePolicy, kOldestDeletePolicy}) {
    Machine failed = machine("failed", 200, true);
    failed.status.failureReason = "UpdateError";
    auto chosen = machinesToDelete({machine("old", 300, true), machine("young", 100, true),
                                    machine("pending", 250, false), failed},
                                   2, policy);
    EXPECT_EQ(names(chosen), (std::vector<std::string>{"failed", "pending"})) << policy;
  }
}

TEST(DeletePolicyTest, MachinesAnnotatedForDeletionGoFirst) {
  Machine marked = machine("marked", 300, true);
  marked.metadata.annotations[kDeleteMachineAnnotation] = "yes";
  auto chosen = machinesToDelete({machine("pending", 100, false), marked}, 1, kNewestDeletePolicy);
  EXPECT_EQ(names(chosen), (std::vector<std::string>{"marked"}));
}

TEST(DeletePolicyTest, RandomIsStableForTheSameMachines) {
  std::vector<Machine> machines;
  for (int i = 0; i < 10; ++i) {
    machines.push_back(machine("m-" + std::to_string(i), i, true));
  }
  auto first = machinesToDelete(machines, 3, kRandomDeletePolicy);
  std::reverse(machines.begin(), machines.end());
  EXPECT_EQ(names(machinesToDelete(machines, 3, kRandomDeletePolicy)), names(first));
  EXPECT_EQ(first.size(), 3u);
}

}  // namespace
}  // namespace nodewright::controllers::capi
