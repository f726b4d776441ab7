#include "controllers/capz/futures.h"

#include <gtest/gtest.h>

#include "api/codec.h"

// status.longRunningOperationStates <-> the engine's records, at the CAPZ boundary.
namespace nodewright::controllers::capz {
namespace {

api::capz::Future future(std::string type, std::string group, std::string name, std::string data) {
  api::capz::Future f;
  f.type = std::move(type);
  f.resourceGroup = std::move(group);
  f.serviceName = "publicips";
  f.name = std::move(name);
  f.data = std::move(data);
  return f;
}

TEST(CapzFuturesTest, RecordsCarryEveryFieldOfTheFuture) {
  auto records = toRecords({future("PATCH", "rg", "ip-1", "token")});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key.verb, lro::Verb::Patch);
  EXPECT_EQ(records[0].key.resourceGroup, "rg");
  EXPECT_EQ(records[0].key.serviceName, "publicips");
  EXPECT_EQ(records[0].key.name, "ip-1");
  EXPECT_EQ(records[0].resumeToken, "token");
  api::capz::Future back = toFuture(records[0]);
  EXPECT_EQ(back.type, "PATCH");
  EXPECT_EQ(back.resourceGroup, "rg");
  EXPECT_EQ(back.serviceName, "publicips");
  EXPECT_EQ(back.name, "ip-1");
  EXPECT_EQ(back.data, "token");
}

TEST(CapzFuturesTest, SameNamedResourcesInTwoGroupsStayTwoFutures) {
  api::capz::Futures futures = {future("PUT", "rg-a", "ip-1", "a"),
                                future("PUT", "rg-b", "ip-1", "b")};
  lro::OperationRecords records = toRecords(futures);
  ASSERT_EQ(records.size(), 2u);
  lro::OperationKey b = records[1].key;
  ASSERT_TRUE(lro::removeRecord(records, b));

  fromRecords(records, futures);

  ASSERT_EQ(futures.size(), 1u);
  EXPECT_EQ(futures[0].resourceGroup, "rg-a");
  EXPECT_EQ(futures[0].data, "a");
}

TEST(CapzFuturesTest, WritingBackKeepsOrderUpdatesInPlaceAndLeavesUnknownTypesAlone) {
  api::capz::Futures futures = {future("PUT", "rg", "ip-1", "a"),
                                future("GET", "rg", "ip-2", "not ours"),
                                future("DELETE", "rg", "ip-3", "c")};
  lro::OperationRecords records = toRecords(futures);
  ASSERT_EQ(records.size(), 2u) << "a type the engine does not drive is not its record";
  records[0].resumeToken = "a2";
  lro::removeRecord(records, records[1].key);
  records.push_back(lro::OperationRecord{{lro::Verb::Put, "publicips", "rg", "ip-4"}, "d"});

  fromRecords(records, futures);

  ASSERT_EQ(futures.size(), 3u);
  EXPECT_EQ(futures[0].name, "ip-1");
  EXPECT_EQ(futures[0].data, "a2");
  EXPECT_EQ(futures[1].type, "GET");
  EXPECT_EQ(futures[1].data, "not ours");
  EXPECT_EQ(futures[2].name, "ip-4");
  EXPECT_EQ(futures[2].type, "PUT");
}

TEST(CapzFuturesTest, WithRecordsWritesTheEnginesChangesBack) {
  api::capz::Futures futures = {future("PUT", "rg", "ip-1", "a")};
  int seen = withRecords(futures, [](lro::OperationRecords& records) {
    int n = static_cast<int>(records.size());
    records.clear();
    return n;
  });
  EXPECT_EQ(seen, 1);
  EXPECT_TRUE(futures.empty());
}

// Records survive the status' trip through the API server as JSON, as after a restart.
TEST(CapzFuturesTest, RecordsSurviveTheStatusRoundTrip) {
  lro::OperationRecords records = {
      lro::OperationRecord{{lro::Verb::Delete, "publicips", "rg-b", "ip-1"}, "token"}};
  api::capz::Futures futures;
  fromRecords(records, futures);
  api::Json persisted = api::toJson(futures);
  api::capz::Futures reloaded;
  ASSERT_TRUE(api::decodeJson(persisted, reloaded).empty());
  lro::OperationRecords back = toRecords(reloaded);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].key, records[0].key);
  EXPECT_EQ(back[0].resumeToken, "token");
}

TEST(CapzFuturesTest, VerbsAndTypesMapBothWays) {
  for (lro::Verb v : {lro::Verb::Put, lro::Verb::Patch, lro::Verb::Delete}) {
    EXPECT_EQ(futureVerb(futureType(v)), v);
  }
  EXPECT_EQ(futureVerb("GET"), std::nullopt);
  EXPECT_STREQ(futureType(lro::Verb::Delete), "DELETE");
}

}  // namespace
}  // namespace nodewright::controllers::capz
