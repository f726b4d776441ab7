#include "controllers/nodepool/counter_controller.h"

#include <gtest/gtest.h>

#include <ostream>

#include "controllers/nodepool/controllers.h"
#include "controllers/nodepool/controllers_env.h"

namespace nodewright::core {
// Quantities in failure messages as their text.
inline void PrintTo(const Quantity& quantity, std::ostream* out) {
  *out << quantity.toString();
}
}  // namespace nodewright::core

// nodepool.counter: a NodePool's status.resources and status.nodes follow its launched, live
// NodeClaims, extended resources included, and drop when a claim goes away or starts deleting.
namespace nodewright::controllers::nodepool {
namespace {

using namespace controllers::testing;
using core::Quantity;
using Resources = std::map<std::string, Quantity>;

Quantity q(const char* text) {
  auto parsed = Quantity::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value_or(Quantity());
}

api::Object object(const NodeClaim& claim) {
  return api::Object(&kube::kindOf<NodeClaim>(), std::make_shared<NodeClaim>(claim));
}

NodeClaim claimOf(const std::string& name, const Resources& capacity, bool launched) {
  NodeClaim claim;
  claim.metadata.name = name;
  claim.status.capacity = capacity;
  if (launched) {
    api::Condition condition;
    condition.type = api::karpenter::kLaunched;
    condition.status = "True";
    claim.status.conditions.push_back(condition);
  }
  return claim;
}

TEST(UsageOfTest, SumsLaunchedLiveClaimsAndReportsBaseResourcesAtZero) {
  EXPECT_EQ(usageOf({}).resources, (Resources{{"cpu", q("0")},
                                              {"memory", q("0")},
                                              {"pods", q("0")},
                                              {"ephemeral-storage", q("0")},
                                              {"nodes", q("0")}}));
  NodeClaim deleting = claimOf("deleting", {{"cpu", q("8")}}, true);
  deleting.metadata.deletionTimestamp = core::Time(core::systemClock().now());
  const PoolUsage usage =
      usageOf({object(claimOf("a", {{"cpu", q("2")}, {"memory", q("8Gi")}}, true)),
               object(claimOf("b", {{"cpu", q("500m")}, {"nvidia.com/gpu", q("1")}}, true)),
               object(claimOf("pending", {{"cpu", q("16")}}, false)), object(deleting)});
  EXPECT_EQ(usage.nodes, 2);
  EXPECT_EQ(usage.resources, (Resources{{"cpu", q("2500m")},
                                        {"memory", q("8Gi")},
                                        {"pods", q("0")},
                                        {"ephemeral-storage", q("0")},
                                        {"nvidia.com/gpu", q("1")},
                                        {"nodes", q("2")}}));
}

TEST(UsageOfTest, ReportsComparesValuesNotSpelling) {
  PoolUsage usage = usageOf({object(claimOf("a", {{"memory", q("16Gi")}}, true))});
  api::karpenter::NodePoolStatus status;
  status.resources = usage.resources;
  status.resources["memory"] = q("17179869184");
  status.nodes = 1;
  EXPECT_TRUE(reports(status, usage));
  status.nodes = std::nullopt;
  EXPECT_FALSE(reports(status, usage)) << "an unset nodes count is written";
  status.nodes = 1;
  status.resources.erase("pods");
  EXPECT_FALSE(reports(status, usage));
}

class CounterControllerTest : public ControllersEnv {
 protected:
  void SetUp() override {
    start([](runtime::Manager& manager) -> std::shared_ptr<void> { return setup(manager); });
  }
  // A claim of pool "default" as the lifecycle controller leaves it once launched.
  void launch(const std::string& name, const Resources& capacity,
              const std::string& poolName = "default") {
    createClaim(name, poolName, "default", {});
    mutate<NodeClaim>(
        claims_, name,
        [&](NodeClaim& c) {
          c.status.providerID = "aws:///us-west-2a/i-" + name;
          c.status.capacity = capacity;
          api::Condition launched;
          launched.type = api::karpenter::kLaunched;
          launched.status = "True";
          launched.reason = "Launched";
          launched.lastTransitionTime = core::Time(clock_.now());
          c.status.conditions.push_back(launched);
        },
        true);
  }
  bool awaitStatus(const std::string& name, int64_t nodes, const Resources& resources) {
    return eventually([&] {
      auto got = pools_.get("", name);
      return got && got->status.nodes == nodes && got->status.resources == resources;
    });
  }
  std::string describe(const std::string& name) {
    const NodePool p = pool(name);
    std::string out = "nodes=" + (p.status.nodes ? std::to_string(*p.status.nodes) : "unset");
    for (const auto& [resource, quantity] : p.status.resources) {
      out += " " + resource + "=" + quantity.toString();
    }
    return out;
  }
};

TEST_F(CounterControllerTest, SumsCapacitiesCountsNodesAndFollowsClaimsAway) {
  createPool("default");
  createPool("other");
  ASSERT_TRUE(awaitStatus("default", 0,
                          {{"cpu", q("0")},
                           {"memory", q("0")},
                           {"pods", q("0")},
                           {"ephemeral-storage", q("0")},
                           {"nodes", q("0")}}))
      << describe("default");

  launch(
      "a",
      {{"cpu", q("2")}, {"memory", q("8Gi")}, {"pods", q("29")}, {"ephemeral-storage", q("20Gi")}});
  launch("b", {{"cpu", q("4")},
               {"memory", q("16Gi")},
               {"pods", q("58")},
               {"ephemeral-storage", q("20Gi")},
               {"nvidia.com/gpu", q("1")}});
  createClaim("pending", "default", "default", {});  // not launched: no capacity yet
  launch("x", {{"cpu", q("64")}}, "other");
  ASSERT_TRUE(awaitStatus("default", 2,
                          {{"cpu", q("6")},
                           {"memory", q("24Gi")},
                           {"pods", q("87")},
                           {"ephemeral-storage", q("40Gi")},
                           {"nvidia.com/gpu", q("1")},
                           {"nodes", q("2")}}))
      << describe("default");
  EXPECT_TRUE(awaitStatus("other", 1,
                          {{"cpu", q("64")},
                           {"memory", q("0")},
                           {"pods", q("0")},
                           {"ephemeral-storage", q("0")},
                           {"nodes", q("1")}}))
      << describe("other");

  // A deleting claim (held by a finalizer) no longer counts: its replacement may launch.
  mutate<NodeClaim>(claims_, "b",
                    [](NodeClaim& c) { c.metadata.finalizers.push_back("test/hold"); });
  ASSERT_TRUE(claims_.remove("", "b"));
  ASSERT_TRUE(awaitStatus("default", 1,
                          {{"cpu", q("2")},
                           {"memory", q("8Gi")},
                           {"pods", q("29")},
                           {"ephemeral-storage", q("20Gi")},
                           {"nodes", q("1")}}))
      << describe("default");

  ASSERT_TRUE(claims_.remove("", "a"));
  ASSERT_TRUE(awaitStatus("default", 0,
                          {{"cpu", q("0")},
                           {"memory", q("0")},
                           {"pods", q("0")},
                           {"ephemeral-storage", q("0")},
                           {"nodes", q("0")}}))
      << describe("default");
}

}  // namespace
}  // namespace nodewright::controllers::nodepool
