#include "controllers/capi/rollout.h"

#include <gtest/gtest.h>

// How a MachineDeployment spreads replicas over its MachineSets: the Deployment algorithm.
namespace nodewright::controllers::capi {
namespace {

SetState set(const char* name, int32_t replicas, int32_t machines, int32_t available) {
  return SetState{name, replicas, machines, available};
}

struct RolloutCase {
  std::string name;
  RolloutInput input;
  std::vector<int32_t> plan;  // new set first, then the old sets
};

class RolloutTest : public ::testing::TestWithParam<RolloutCase> {};

TEST_P(RolloutTest, PlansReplicas) {
  EXPECT_EQ(planRollout(GetParam().input), GetParam().plan);
}

RolloutInput rolling(int32_t desired, int32_t surge, int32_t unavailable, SetState newSet,
                     std::vector<SetState> oldSets) {
  RolloutInput input;
  input.desired = desired;
  input.maxSurge = surge;
  input.maxUnavailable = unavailable;
  input.newSet = newSet;
  input.oldSets = std::move(oldSets);
  return input;
}

RolloutInput onDelete(int32_t desired, SetState newSet, std::vector<SetState> oldSets) {
  RolloutInput input = rolling(desired, 0, 0, newSet, std::move(oldSets));
  input.onDelete = true;
  return input;
}

INSTANTIATE_TEST_SUITE_P(
    Plans, RolloutTest,
    ::testing::Values(
        RolloutCase{"ScalesASingleSetUp", rolling(5, 1, 0, set("new", 0, 0, 0), {}), {5}},
        RolloutCase{"ScalesASingleSetDown", rolling(2, 1, 0, set("new", 5, 5, 5), {}), {2}},
        RolloutCase{"StartsARolloutWithOneSurgeMachine",
                    rolling(3, 1, 0, set("new", 0, 0, 0), {set("old", 3, 3, 3)}),
                    {1, 3}},
        RolloutCase{"KeepsOldMachinesWhileNewOnesAreNotAvailable",
                    rolling(3, 1, 0, set("new", 1, 1, 0), {set("old", 3, 3, 3)}),
                    {1, 3}},
        RolloutCase{"TradesAnOldMachineForEachAvailableNewOne",
                    rolling(3, 1, 0, set("new", 1, 1, 1), {set("old", 3, 3, 3)}),
                    {1, 2}},
        RolloutCase{"GrowsTheNewSetOnceTheOldShrank",
                    rolling(3, 1, 0, set("new", 1, 1, 1), {set("old", 2, 2, 2)}),
                    {2, 2}},
        RolloutCase{"FinishesWithTheOldSetEmpty",
                    rolling(3, 1, 0, set("new", 3, 3, 3), {set("old", 1, 1, 1)}),
                    {3, 0}},
        RolloutCase{"RemovesUnavailableOldMachinesFirst",
                    rolling(3, 1, 0, set("new", 1, 1, 1), {set("old", 3, 3, 1)}),
                    {1, 2}},
        RolloutCase{"MaxUnavailableLetsOldMachinesGoEarly",
                    rolling(4, 0, 2, set("new", 0, 0, 0), {set("old", 4, 4, 4)}),
                    {0, 2}},
        RolloutCase{"ShrinksOldestSetsFirst",
                    rolling(2, 1, 0, set("new", 2, 2, 2), {set("a", 1, 1, 1), set("b", 1, 1, 1)}),
                    {2, 0, 0}},
        RolloutCase{"OnDeleteKeepsOldMachinesUntilDeleted",
                    onDelete(3, set("new", 0, 0, 0), {set("old", 3, 3, 3)}),
                    {0, 3}},
        RolloutCase{"OnDeleteReplacesDeletedOldMachines",
                    onDelete(3, set("new", 0, 0, 0), {set("old", 3, 2, 2)}),
                    {1, 2}},
        RolloutCase{"OnDeleteScaleDownTakesFromOldSets",
                    onDelete(1, set("new", 1, 1, 1), {set("old", 2, 2, 2)}),
                    {0, 1}}),
    [](const auto& info) { return info.param.name; });

TEST(ResolveBoundsTest, RoundsSurgeUpAndUnavailableDown) {
  const Bounds bounds =
      resolveBounds(api::IntOrString::ofString("25%"), api::IntOrString::ofString("25%"), 5);
  EXPECT_EQ(bounds.maxSurge, 2);
  EXPECT_EQ(bounds.maxUnavailable, 1);
}

TEST(ResolveBoundsTest, DefaultsToOneSurgeAndNoUnavailable) {
  const Bounds bounds = resolveBounds(std::nullopt, std::nullopt, 3);
  EXPECT_EQ(bounds.maxSurge, 1);
  EXPECT_EQ(bounds.maxUnavailable, 0);
}

TEST(ResolveBoundsTest, BothZeroWouldStallSoOneMayBeUnavailable) {
  const Bounds bounds =
      resolveBounds(api::IntOrString::ofInt(0), api::IntOrString::ofString("0%"), 3);
  EXPECT_EQ(bounds.maxSurge, 0);
  EXPECT_EQ(bounds.maxUnavailable, 1);
}

}  // namespace
}  // namespace nodewright::controllers::capi
