#include "apiserver/rest/disruption_budget.h"

#include <gtest/gtest.h>

namespace nodewright::apiserver::rest {
namespace {

using api::Json;

storage::StoredPtr pod(const std::string& name, bool ready, const std::string& app = "db") {
  auto stored = std::make_shared<storage::Stored>();
  stored->key = "pods/default/" + name;
  stored->object = std::make_shared<Json>(Json{
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
      {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}});
  return stored;
}

Json budget(Json spec) {
  return {{"metadata", {{"name", "db"}, {"namespace", "default"}, {"generation", 3}}},
          {"spec", std::move(spec)}};
}

TEST(DisruptionBudgetTest, MinAvailableCountsReadySelectedPods) {
  Json pdb = budget({{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "db"}}}}}});
  std::vector<storage::StoredPtr> pods = {pod("a", true), pod("b", true), pod("c", false),
                                          pod("other", true, "web")};
  BudgetHealth health = budgetHealth(pdb, pods);
  EXPECT_EQ(health.expected, 3);
  EXPECT_EQ(health.healthy, 2);
  EXPECT_EQ(health.desired, 2);
  EXPECT_EQ(health.allowed(), 0);
  EXPECT_FALSE(evictionAllowed(pdb, health, *pods[0]->object));
  // The unready pod may go: the budget is met without it (IfHealthyBudget).
  EXPECT_TRUE(evictionAllowed(pdb, health, *pods[2]->object));
}

TEST(DisruptionBudgetTest, MaxUnavailablePercentRoundsUp) {
  Json pdb = budget({{"maxUnavailable", "50%"}, {"selector", Json::object()}});
  std::vector<storage::StoredPtr> pods = {pod("a", true), pod("b", true), pod("c", true)};
  BudgetHealth health = budgetHealth(pdb, pods);
  EXPECT_EQ(health.expected, 3);
  EXPECT_EQ(health.desired, 1);  // 3 - ceil(1.5)
  EXPECT_EQ(health.allowed(), 2);
}

TEST(DisruptionBudgetTest, NullSelectorSelectsNothingEmptySelectsAll) {
  Json none = budget({{"minAvailable", 1}});
  Json all = budget({{"minAvailable", 1}, {"selector", Json::object()}});
  EXPECT_FALSE(budgetSelects(none, *pod("a", true)->object));
  EXPECT_TRUE(budgetSelects(all, *pod("a", true)->object));
}

TEST(DisruptionBudgetTest, StatusKeepsTheTransitionTimeWhileTheConditionHolds) {
  Json pdb = budget({{"minAvailable", 1}, {"selector", Json::object()}});
  std::vector<storage::StoredPtr> pods = {pod("a", true), pod("b", true)};
  Json first = budgetStatus(pdb, budgetHealth(pdb, pods), "2026-11-21T10:00:00Z");
  EXPECT_EQ(first["disruptionsAllowed"], 1);
  EXPECT_EQ(first["observedGeneration"], 3);
  EXPECT_EQ(first["conditions"][0]["status"], "True");
  pdb["status"] = first;
  Json again = budgetStatus(pdb, budgetHealth(pdb, pods), "2026-11-21T11:00:00Z");
  EXPECT_EQ(again["conditions"][0]["lastTransitionTime"], "2026-11-21T10:00:00Z");
  pods.pop_back();
  Json blocked = budgetStatus(pdb, budgetHealth(pdb, pods), "2026-11-21T12:00:00Z");
  EXPECT_EQ(blocked["disruptionsAllowed"], 0);
  EXPECT_EQ(blocked["conditions"][0]["status"], "False");
  EXPECT_EQ(blocked["conditions"][0]["lastTransitionTime"], "2026-11-21T12:00:00Z");
}

}  // namespace
}  // namespace nodewright::apiserver::rest
