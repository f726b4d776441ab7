#include "api/capi/conditions.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

// CAPI's util/conditions setters, shared by the CAPI and CAPZ controllers.
namespace nodewright::api::capi {
namespace {

using namespace std::chrono_literals;

core::Time at(int seconds) {
  return core::Time(core::TimePoint(std::chrono::seconds(1700000000 + seconds)));
}

std::vector<std::string> types(const Conditions& conditions) {
  std::vector<std::string> out;
  for (const CapiCondition& c : conditions) {
    out.push_back(c.type);
  }
  return out;
}

TEST(CapiConditionsTest, SameStateKeepsTheTransitionTimeAnyChangeMovesIt) {
  Conditions conditions;
  markFalse(conditions, "BootstrapReady", "WaitingForDataSecret", kSeverityInfo, "", at(0));
  markFalse(conditions, "BootstrapReady", "WaitingForDataSecret", kSeverityInfo, "", at(10));
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].lastTransitionTime, at(0));

  markFalse(conditions, "BootstrapReady", "WaitingForDataSecret", kSeverityWarning, "", at(20));
  EXPECT_EQ(conditions[0].severity, "Warning");
  EXPECT_EQ(conditions[0].lastTransitionTime, at(20));
  markFalse(conditions, "BootstrapReady", "WaitingForDataSecret", kSeverityWarning, "m", at(30));
  EXPECT_EQ(conditions[0].lastTransitionTime, at(30));
  markTrue(conditions, "BootstrapReady", at(40));
  EXPECT_EQ(conditions[0].status, "True");
  EXPECT_EQ(conditions[0].reason, "");
  EXPECT_EQ(conditions[0].severity, "");
  EXPECT_EQ(conditions[0].message, "");
  EXPECT_EQ(conditions[0].lastTransitionTime, at(40));
  EXPECT_TRUE(isTrue(conditions, "BootstrapReady"));
}

TEST(CapiConditionsTest, TransitionTimeIsWholeSeconds) {
  Conditions conditions;
  markTrue(conditions, "Ready",
           core::Time(core::TimePoint(std::chrono::seconds(1700000000) + 750ms)));
  EXPECT_EQ(conditions.at(0).lastTransitionTime, at(0));
}

TEST(CapiConditionsTest, ReadyComesFirstThenTypesInOrder) {
  Conditions conditions;
  markTrue(conditions, "VNetReady", at(0));
  markFalse(conditions, kReadyCondition, "Creating", kSeverityInfo, "", at(0));
  markTrue(conditions, "InfrastructureReady", at(0));
  EXPECT_EQ(types(conditions),
            (std::vector<std::string>{"Ready", "InfrastructureReady", "VNetReady"}));
}

TEST(CapiConditionsTest, FindsByType) {
  Conditions conditions;
  EXPECT_EQ(findCondition(conditions, "Ready"), nullptr);
  EXPECT_FALSE(isTrue(conditions, "Ready"));
  markFalse(conditions, "Ready", "Deleting", kSeverityInfo, "going", at(0));
  ASSERT_NE(findCondition(conditions, "Ready"), nullptr);
  EXPECT_EQ(findCondition(conditions, "Ready")->message, "going");
  EXPECT_FALSE(isTrue(conditions, "Ready"));
}

}  // namespace
}  // namespace nodewright::api::capi
