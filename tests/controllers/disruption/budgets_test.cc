#include "controllers/disruption/budgets.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::Budget;
using api::karpenter::Disruption;

// 2024-09-07 is a Saturday; 2024-09-09 a Monday.
const char* const kMondayTen = "2024-09-09T10:00:00Z";
const char* const kBusinessHours = "0 9 * * 1-5";

core::TimePoint at(const std::string& rfc3339) {
  auto parsed = core::Time::parse(rfc3339);
  EXPECT_TRUE(parsed) << rfc3339;
  return parsed ? parsed->point() : core::TimePoint{};
}

Budget budget(std::string nodes, std::vector<std::string> reasons = {}, std::string schedule = "",
              std::optional<std::chrono::minutes> duration = std::nullopt) {
  Budget b;
  b.nodes = std::move(nodes);
  b.reasons = std::move(reasons);
  b.schedule = std::move(schedule);
  if (duration) {
    b.duration = core::Duration(*duration);
  }
  return b;
}

Disruption pool(std::vector<Budget> budgets) {
  Disruption d;
  d.consolidationPolicy = "WhenEmpty";
  d.budgets = std::move(budgets);
  return d;
}

BudgetVerdict verdict(const Disruption& d, std::string_view reason, int total,
                      const std::string& now = kMondayTen) {
  auto result = allowedDisruptions(d, reason, total, at(now));
  EXPECT_TRUE(result) << result.error().message();
  return result ? *result : BudgetVerdict{};
}

std::string errorOf(const Disruption& d, std::string_view reason = kReasonDrifted) {
  auto result = allowedDisruptions(d, reason, 10, at(kMondayTen));
  return result ? "no error" : result.error().message();
}

TEST(BudgetsTest, PercentOfNodesRoundsUp) {
  EXPECT_EQ(verdict(pool({budget("20%")}), kReasonDrifted, 10).allowed, 2);
  EXPECT_EQ(verdict(pool({budget("20%")}), kReasonDrifted, 3).allowed, 1);
  EXPECT_EQ(verdict(pool({budget("20%")}), kReasonDrifted, 11).allowed, 3);
  EXPECT_EQ(verdict(pool({budget("20%")}), kReasonDrifted, 0).allowed, 0);
  EXPECT_EQ(verdict(pool({budget("100%")}), kReasonDrifted, 7).allowed, 7);
  EXPECT_EQ(verdict(pool({budget("0%")}), kReasonDrifted, 7).allowed, 0);
  auto v = verdict(pool({budget("20%")}), kReasonDrifted, 3);
  EXPECT_EQ(v.budget, std::optional<size_t>(0));
  EXPECT_EQ(v.description, "budgets[0] (nodes 20% of 3 = 1)");
}

TEST(BudgetsTest, NodeCountIsTakenAsWritten) {
  auto zero = verdict(pool({budget("0")}), kReasonEmpty, 10);
  EXPECT_EQ(zero.allowed, 0);
  EXPECT_EQ(zero.budget, std::optional<size_t>(0));
  EXPECT_EQ(zero.description, "budgets[0] (nodes 0)");
  // As Karpenter: a count is not capped by the pool's size.
  EXPECT_EQ(verdict(pool({budget("5")}), kReasonEmpty, 3).allowed, 5);
}

TEST(BudgetsTest, EmptyNodesDefaultsToTenPercent) {
  EXPECT_EQ(verdict(pool({budget("")}), kReasonDrifted, 20).allowed, 2);
}

TEST(BudgetsTest, MostRestrictiveActiveBudgetWins) {
  auto v = verdict(pool({budget("50%"), budget("3"), budget("20%")}), kReasonDrifted, 10);
  EXPECT_EQ(v.allowed, 2);
  EXPECT_EQ(v.budget, std::optional<size_t>(2));
  EXPECT_EQ(v.description, "budgets[2] (nodes 20% of 10 = 2), the most restrictive of 3 active");
}

TEST(BudgetsTest, FirstOfEquallyRestrictiveWins) {
  auto v = verdict(pool({budget("5"), budget("2"), budget("20%")}), kReasonDrifted, 10);
  EXPECT_EQ(v.allowed, 2);
  EXPECT_EQ(v.budget, std::optional<size_t>(1));
}

TEST(BudgetsTest, ReasonsLimitWhichBudgetsApply) {
  auto d = pool({budget("0", {kReasonDrifted}), budget("5")});
  auto drifted = verdict(d, kReasonDrifted, 10);
  EXPECT_EQ(drifted.allowed, 0);
  EXPECT_EQ(drifted.budget, std::optional<size_t>(0));
  EXPECT_EQ(drifted.description,
            "budgets[0] (nodes 0, reasons Drifted), the most restrictive of 2 "
            "active");
  auto empty = verdict(d, kReasonEmpty, 10);
  EXPECT_EQ(empty.allowed, 5);
  EXPECT_EQ(empty.budget, std::optional<size_t>(1));
  EXPECT_EQ(empty.description, "budgets[1] (nodes 5)");
}

TEST(BudgetsTest, ExpiredIsLimitedOnlyByBudgetsForAllReasons) {
  auto named = pool({budget("0", {kReasonDrifted, kReasonEmpty, kReasonUnderutilized})});
  auto unlimited = verdict(named, kReasonExpired, 10);
  EXPECT_EQ(unlimited.allowed, 10);
  EXPECT_EQ(unlimited.budget, std::nullopt);
  EXPECT_EQ(unlimited.description, "no budget applies to Expired: none active");

  auto all = pool({budget("0", {kReasonDrifted, kReasonEmpty, kReasonUnderutilized}), budget("1")});
  auto limited = verdict(all, kReasonExpired, 10);
  EXPECT_EQ(limited.allowed, 1);
  EXPECT_EQ(limited.budget, std::optional<size_t>(1));
}

TEST(BudgetsTest, NoBudgetsIsUnlimited) {
  auto v = verdict(pool({}), kReasonDrifted, 7);
  EXPECT_EQ(v.allowed, 7);
  EXPECT_EQ(v.budget, std::nullopt);
  EXPECT_EQ(v.description, "no budgets: none active");
}

TEST(BudgetsTest, ClosedWindowBudgetIsInactive) {
  auto d = pool({budget("0", {}, kBusinessHours, std::chrono::hours(8))});
  auto saturday = verdict(d, kReasonDrifted, 10, "2024-09-07T10:00:00Z");
  EXPECT_EQ(saturday.allowed, 10);
  EXPECT_EQ(saturday.budget, std::nullopt);
  EXPECT_EQ(saturday.description,
            "budgets[0] is outside its window (opens 2024-09-09T09:00:00Z): none active");
}

TEST(BudgetsTest, OpenWindowBudgetIsActive) {
  auto d = pool({budget("0", {kReasonDrifted}, kBusinessHours, std::chrono::hours(8))});
  auto v = verdict(d, kReasonDrifted, 10, kMondayTen);
  EXPECT_EQ(v.allowed, 0);
  EXPECT_EQ(v.budget, std::optional<size_t>(0));
  EXPECT_EQ(v.description,
            "budgets[0] (nodes 0, reasons Drifted, schedule \"0 9 * * 1-5\" for 8h0m0s)");
}

// The common pattern: no drift replacement during business hours, 10% at a time otherwise.
TEST(BudgetsTest, BusinessHoursFreezeAtTheWindowBoundaries) {
  auto d =
      pool({budget("0", {kReasonDrifted}, kBusinessHours, std::chrono::hours(8)), budget("10%")});
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T08:59:59Z").allowed, 1);
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T09:00:00Z").allowed, 0);
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T16:59:59.999999Z").allowed, 0);
  auto after = verdict(d, kReasonDrifted, 10, "2024-09-09T17:00:00Z");
  EXPECT_EQ(after.allowed, 1);
  EXPECT_EQ(after.budget, std::optional<size_t>(1));
  EXPECT_EQ(after.description,
            "budgets[1] (nodes 10% of 10 = 1); budgets[0] is outside its window (opens "
            "2024-09-10T09:00:00Z)");
  // Empty nodes are not frozen.
  EXPECT_EQ(verdict(d, kReasonEmpty, 10, "2024-09-09T10:00:00Z").allowed, 1);
}

TEST(BudgetsTest, WindowNamesEveryClosedBudget) {
  auto d = pool({budget("0", {}, "@daily", std::chrono::hours(1)),
                 budget("1", {}, "0 12 * * *", std::chrono::minutes(30))});
  auto v = verdict(d, kReasonEmpty, 10, kMondayTen);
  // budgets[1] would allow one node when open: a maintenance window, so nothing until then.
  EXPECT_EQ(v.allowed, 0);
  EXPECT_EQ(v.description,
            "budgets[0] is outside its window (opens 2024-09-10T00:00:00Z), budgets[1] is "
            "outside its window (opens 2024-09-09T12:00:00Z): outside every maintenance window");
}

// Drift only at night: Karpenter would drift without limit during the day (the window's budget
// is inactive and no other applies); a closed maintenance window blocks instead.
TEST(BudgetsTest, DriftOnlyInsideTheMaintenanceWindow) {
  auto d = pool({budget("20%", {kReasonDrifted}, "0 2 * * *", std::chrono::hours(2))});
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T01:59:00Z").allowed, 0);
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T02:00:00Z").allowed, 2);
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T03:59:00Z").allowed, 2);
  EXPECT_EQ(verdict(d, kReasonDrifted, 10, "2024-09-09T04:00:00Z").allowed, 0);
  // Other reasons have no window: unlimited, as in Karpenter.
  EXPECT_EQ(verdict(d, kReasonEmpty, 10, "2024-09-09T10:00:00Z").allowed, 10);
}

TEST(BudgetsTest, InvalidBudgetsNameTheirField) {
  EXPECT_EQ(errorOf(pool({budget("5"), budget("1", {}, "0 9 * * *")})),
            "spec.disruption.budgets[1].schedule: \"0 9 * * *\" needs a duration to be active "
            "for");
  EXPECT_EQ(errorOf(pool({budget("1", {}, "0 9 * * 8", std::chrono::hours(1))})),
            "spec.disruption.budgets[0].schedule: \"0 9 * * 8\": day-of-week: 8 is out of range "
            "0-7");
  EXPECT_EQ(errorOf(pool({budget("abc")})),
            "spec.disruption.budgets[0].nodes: \"abc\" is not a node count or a percentage from "
            "0% to 100%");
  EXPECT_EQ(errorOf(pool({budget("101%")})),
            "spec.disruption.budgets[0].nodes: \"101%\" is not a node count or a percentage from "
            "0% to 100%");
  EXPECT_EQ(errorOf(pool({budget("-1")})),
            "spec.disruption.budgets[0].nodes: \"-1\" is not a node count or a percentage from "
            "0% to 100%");
  EXPECT_EQ(errorOf(pool({budget("1", {}, "", std::chrono::hours(1))})),
            "spec.disruption.budgets[0].schedule: required: a duration needs a schedule");
}

TEST(BudgetsTest, InvalidBudgetFailsEveryReason) {
  auto d = pool({budget("x", {kReasonDrifted}), budget("5")});
  EXPECT_EQ(errorOf(d, kReasonEmpty),
            "spec.disruption.budgets[0].nodes: \"x\" is not a node count or a percentage from "
            "0% to 100%");
  auto result = allowedDisruptions(d, kReasonEmpty, 10, at(kMondayTen));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), core::Code::Invalid);
}

}  // namespace
}  // namespace nodewright::controllers::disruption
