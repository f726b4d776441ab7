#include "lro/records.h"

#include <gtest/gtest.h>

#include "lro/timeouts.h"

namespace nodewright::lro {
namespace {

using namespace std::chrono_literals;

ResourceRef ref(const std::string& name, const std::string& service = "publicips",
                const std::string& group = "rg") {
  ResourceRef r;
  r.resourceGroup = group;
  r.serviceName = service;
  r.name = name;
  return r;
}

OperationRecord record(const ResourceRef& r, Verb verb, std::string token) {
  return OperationRecord{operationKey(r, verb), std::move(token)};
}

TEST(OperationRecordsTest, AreKeyedByVerbServiceGroupAndName) {
  OperationRecords records;
  setRecord(records, record(ref("ip-1"), Verb::Put, "a"));
  setRecord(records, record(ref("ip-1"), Verb::Delete, "b"));
  setRecord(records, record(ref("ip-1", "natgateways"), Verb::Put, "c"));
  setRecord(records, record(ref("ip-2"), Verb::Put, "d"));
  EXPECT_EQ(records.size(), 4u);

  setRecord(records, record(ref("ip-1"), Verb::Put, "a2"));
  EXPECT_EQ(records.size(), 4u);
  ASSERT_NE(findRecord(records, operationKey(ref("ip-1"), Verb::Put)), nullptr);
  EXPECT_EQ(findRecord(records, operationKey(ref("ip-1"), Verb::Put))->resumeToken, "a2");
  EXPECT_EQ(findRecord(records, operationKey(ref("ip-1"), Verb::Delete))->resumeToken, "b");
  EXPECT_EQ(findRecord(records, operationKey(ref("ip-1"), Verb::Patch)), nullptr);

  EXPECT_TRUE(removeRecord(records, operationKey(ref("ip-1"), Verb::Put)));
  EXPECT_FALSE(removeRecord(records, operationKey(ref("ip-1"), Verb::Put)));
  EXPECT_EQ(records.size(), 3u);
  EXPECT_EQ(findRecord(records, operationKey(ref("ip-1", "natgateways"), Verb::Put))->resumeToken,
            "c");
}

// Two same-named resources of one service in different resource groups are two operations:
// neither replaces, finds or removes the other's record.
TEST(OperationRecordsTest, SameNameInAnotherResourceGroupIsAnotherOperation) {
  OperationRecords records;
  setRecord(records, record(ref("ip-1", "publicips", "rg-a"), Verb::Put, "a"));
  setRecord(records, record(ref("ip-1", "publicips", "rg-b"), Verb::Put, "b"));

  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(
      findRecord(records, operationKey(ref("ip-1", "publicips", "rg-a"), Verb::Put))->resumeToken,
      "a");
  EXPECT_EQ(
      findRecord(records, operationKey(ref("ip-1", "publicips", "rg-b"), Verb::Put))->resumeToken,
      "b");
  EXPECT_TRUE(removeRecord(records, operationKey(ref("ip-1", "publicips", "rg-b"), Verb::Put)));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].resumeToken, "a");
}

TEST(OperationKeyTest, CarriesTheResourceAndTheVerb) {
  OperationKey k = operationKey(ref("ip-1"), Verb::Patch);
  EXPECT_EQ(k.verb, Verb::Patch);
  EXPECT_EQ(k.resourceGroup, "rg");
  EXPECT_EQ(k.serviceName, "publicips");
  EXPECT_EQ(k.name, "ip-1");
  EXPECT_STREQ(verbName(k.verb), "PATCH");
  EXPECT_STREQ(kindName(CallError::Kind::Throttled), "Throttled");
}

TEST(DeadlineTest, RemainingNeverGoesNegative) {
  core::FakeClock clock;
  Deadline d = Deadline::after(clock, 1500ms);
  EXPECT_EQ(d.remaining(clock), 1500ms);
  EXPECT_EQ(d.within(2s, clock), 1500ms);
  EXPECT_EQ(d.within(1s, clock), 1s);
  clock.advance(2s);
  EXPECT_TRUE(d.expired(clock));
  EXPECT_EQ(d.remaining(clock), 0ms);
}

TEST(DeadlineTest, NoneNeverExpiresAndEarliestWins) {
  core::FakeClock clock;
  Deadline none = Deadline::none();
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(none.within(2s, clock), 2s);
  clock.advance(std::chrono::hours(24 * 365));
  EXPECT_FALSE(none.expired(clock));
  Deadline soon = Deadline::after(clock, 1s);
  EXPECT_EQ(none.earliest(soon).time(), soon.time());
  EXPECT_EQ(soon.earliest(none).time(), soon.time());
}

TEST(DeadlineTest, ServiceDeadlineIsWithinTheReconcile) {
  core::FakeClock clock;
  Timeouts t;
  Deadline reconcile = reconcileDeadline(clock, t);
  EXPECT_EQ(reconcile.remaining(clock), std::chrono::minutes(2));
  EXPECT_EQ(serviceDeadline(clock, t, reconcile).remaining(clock), 12s);
  clock.advance(std::chrono::minutes(2) - 5s);
  EXPECT_EQ(serviceDeadline(clock, t, reconcile).remaining(clock), 5s);
}

}  // namespace
}  // namespace nodewright::lro
