#include "lro/futures.h"

#include <gtest/gtest.h>

#include "lro/timeouts.h"

namespace nodewright::lro {
namespace {

using namespace std::chrono_literals;

ResourceRef ref(const std::string& name, const std::string& service = "publicips") {
  ResourceRef r;
  r.resourceGroup = "rg";
  r.serviceName = service;
  r.name = name;
  return r;
}

TEST(FuturesTest, AreKeyedByNameServiceAndType) {
  Futures futures;
  setFuture(futures, makeFuture(ref("ip-1"), Verb::Put, "a"));
  setFuture(futures, makeFuture(ref("ip-1"), Verb::Delete, "b"));
  setFuture(futures, makeFuture(ref("ip-1", "natgateways"), Verb::Put, "c"));
  setFuture(futures, makeFuture(ref("ip-2"), Verb::Put, "d"));
  EXPECT_EQ(futures.size(), 4u);

  setFuture(futures, makeFuture(ref("ip-1"), Verb::Put, "a2"));
  EXPECT_EQ(futures.size(), 4u);
  ASSERT_NE(findFuture(futures, ref("ip-1"), Verb::Put), nullptr);
  EXPECT_EQ(findFuture(futures, ref("ip-1"), Verb::Put)->data, "a2");
  EXPECT_EQ(findFuture(futures, ref("ip-1"), Verb::Delete)->data, "b");
  EXPECT_EQ(findFuture(futures, ref("ip-1"), Verb::Patch), nullptr);

  EXPECT_TRUE(removeFuture(futures, ref("ip-1"), Verb::Put));
  EXPECT_FALSE(removeFuture(futures, ref("ip-1"), Verb::Put));
  EXPECT_EQ(futures.size(), 3u);
  EXPECT_EQ(findFuture(futures, ref("ip-1", "natgateways"), Verb::Put)->data, "c");
}

TEST(FuturesTest, CarryTheResourceAndTheVerb) {
  Future f = makeFuture(ref("ip-1"), Verb::Patch, "token");
  EXPECT_EQ(f.type, "PATCH");
  EXPECT_EQ(f.resourceGroup, "rg");
  EXPECT_EQ(f.serviceName, "publicips");
  EXPECT_EQ(f.name, "ip-1");
  EXPECT_EQ(f.data, "token");
}

TEST(VerbTest, RoundTripsThroughItsName) {
  for (Verb v : {Verb::Put, Verb::Patch, Verb::Delete}) {
    EXPECT_EQ(parseVerb(verbName(v)), v);
  }
  EXPECT_EQ(parseVerb("GET"), std::nullopt);
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
