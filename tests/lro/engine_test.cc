#include "lro/engine.h"

#include <gtest/gtest.h>

#include "lro/engine_fixture.h"

namespace nodewright::lro::testing {
namespace {

TEST_F(EngineTest, StoresFutureWhenCallTimeoutPasses) {
  cloud_.setLatency(30s);
  auto start = clock_.steadyNow();

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_TRUE(o.transient());
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(15s));
  EXPECT_EQ(o.message, "operation PUT on rg/vnet-1 (virtualnetworks) is not done");
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].key.verb, Verb::Put);
  EXPECT_EQ(parked_[0].key.resourceGroup, "rg");
  EXPECT_EQ(parked_[0].key.serviceName, "virtualnetworks");
  EXPECT_EQ(parked_[0].key.name, "vnet-1");
  EXPECT_EQ(parked_[0].resumeToken, cloud_.lastToken());
  // Polled at 0.5, 1 and 1.5 s, then parked exactly at the end of the 2 s window (a poll then
  // would have no time for its request).
  EXPECT_EQ(cloud_.polls(), 3);
  EXPECT_EQ(elapsedSince(start), 2s);
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_EQ(counter("nodewright_lro_futures_stored_total", {"virtualnetworks", "PUT"}), 1);
  EXPECT_EQ(counter("nodewright_lro_not_done_total", {"virtualnetworks", "PUT"}), 1);
}

TEST_F(EngineTest, OperationDoneWithinWindowLeavesNoFuture) {
  cloud_.setLatency(1200ms);
  auto start = clock_.steadyNow();

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_EQ(o.result["properties"]["provisioningState"], "Succeeded");
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(elapsedSince(start), 1500ms);
  EXPECT_EQ(counter("nodewright_lro_futures_stored_total", {"virtualnetworks", "PUT"}), 0);
}

TEST_F(EngineTest, ResumesStoredFutureWithoutSendingThePutAgain) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  std::string token = parked_.at(0).resumeToken;

  fake_.advance(15s);  // the requeue
  Outcome still = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(still.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(parked_.at(0).resumeToken, token);
  // A resume is one poll: no GET, no second window.
  EXPECT_EQ(cloud_.polls(), 4);
  EXPECT_EQ(cloud_.gets(), 1);

  fake_.advance(15s);
  Outcome done = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(done.kind, Outcome::Kind::Done);
  EXPECT_EQ(done.result["location"], "westeurope");
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_EQ(counter("nodewright_lro_futures_resumed_total", {"virtualnetworks", "PUT"}), 2);
}

TEST_F(EngineTest, RestartedEngineResumesFromPersistedFuturesWithZeroExtraPuts) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  // The records are stored with the object (CAPZ: as status futures, whose round trip through
  // the API is tested with controllers/capz/futures.h); the process dies.
  OperationRecords reloaded = parked_;
  restart();
  fake_.advance(30s);

  Outcome o = engine().createOrUpdate(spec_, reloaded);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(reloaded.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_EQ(cloud_.gets(), 1);
}

// The resource group is part of an operation's key: a same-named resource of the same service
// in another group gets its own PUT, and neither resumes the other's operation.
TEST_F(EngineTest, SameNamedResourceInAnotherGroupHasItsOwnOperation) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  ResourceRef other = vnetRef();
  other.resourceGroup = "rg-2";
  other.id = "/subscriptions/sub/resourceGroups/rg-2/providers/Microsoft.Network/virtualNetworks/" +
             other.name;
  TestSpec otherSpec{other, vnetBody()};

  Outcome o = engine().createOrUpdate(otherSpec, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(cloud_.begins(Verb::Put), 2) << "rg-2's vnet is not rg's";
  ASSERT_EQ(parked_.size(), 2u);
  EXPECT_NE(parked_[0].resumeToken, parked_[1].resumeToken);
  fake_.advance(30s);
  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::Done);
  EXPECT_EQ(engine().createOrUpdate(otherSpec, parked_).kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
}

TEST_F(EngineTest, FutureDeletedWhenOperationFails) {
  cloud_.setLatency(30s);
  cloud_.endAs(OpStatus::Failed, "QuotaExceeded", "too many vnets");
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  fake_.advance(30s);

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Failed);
  EXPECT_FALSE(o.transient());
  EXPECT_EQ(o.errorCode, "QuotaExceeded");
  EXPECT_EQ(o.message,
            "operation PUT on rg/vnet-1 (virtualnetworks) failed: QuotaExceeded: too many vnets");
  EXPECT_TRUE(parked_.empty());

  // The next reconcile tries afresh rather than resuming the failure.
  cloud_.endAs(OpStatus::Succeeded);
  cloud_.setLatency(0ms);
  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::Done);
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
}

TEST_F(EngineTest, UpToDateResourceSkipsThePut) {
  api::Json existing = vnetBody();
  existing["properties"]["provisioningState"] = "Succeeded";
  cloud_.putResource(ref_.id, existing);

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_EQ(o.result, existing);
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);
  EXPECT_EQ(cloud_.gets(), 1);
}

TEST_F(EngineTest, PatchUsesItsOwnFuture) {
  cloud_.putResource(ref_.id, api::Json{{"properties", {{"old", true}}}});
  cloud_.setLatency(30s);

  Outcome o = engine().patch(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].key.verb, Verb::Patch);
  EXPECT_EQ(cloud_.begins(Verb::Patch), 1);
  fake_.advance(30s);
  EXPECT_EQ(engine().patch(spec_, parked_).kind, Outcome::Kind::Done);
  EXPECT_EQ(cloud_.begins(Verb::Patch), 1);
}

TEST_F(EngineTest, RetryAfterBecomesRequeueAfter) {
  cloud_.setLatency(30s);
  cloud_.setRetryAfter(7s);
  auto start = clock_.steadyNow();

  Outcome o = engine().createOrUpdate(spec_, parked_);

  // The cloud asked for 7 s, past the 2 s window: parked at once, no early poll.
  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(7s));
  EXPECT_EQ(cloud_.polls(), 0);
  EXPECT_EQ(elapsedSince(start), 0s);

  fake_.advance(7s);
  Outcome resumed = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(resumed.requeueAfter, std::optional<milliseconds>(7s));
}

TEST_F(EngineTest, RetryAfterWithinTheWindowIsThePollInterval) {
  cloud_.setLatency(1300ms);
  cloud_.setRetryAfter(700ms);
  auto start = clock_.steadyNow();

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_EQ(cloud_.polls(), 2);  // at 0.7 s and 1.4 s, not every 500 ms
  EXPECT_EQ(elapsedSince(start), 1400ms);
}

// Each poll in the window may take only what is left of the window: a 2 s call must not block
// for 2 s plus a last request's full 2 s.
TEST_F(EngineTest, PollsWithinTheWindowGetOnlyWhatIsLeftOfIt) {
  cloud_.setLatency(30s);
  auto start = clock_.steadyNow();

  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);

  // GET and PUT at 0 s, polls at 0.5, 1 and 1.5 s; none at 2 s with nothing left.
  std::vector<milliseconds> want = {2000ms, 2000ms, 1500ms, 1000ms, 500ms};
  EXPECT_EQ(cloud_.timeouts(), want);
  EXPECT_EQ(elapsedSince(start), 2s);
}

TEST_F(EngineTest, DeadlineShortensTheWindowAndEveryRequest) {
  cloud_.setLatency(30s);
  Deadline deadline = Deadline::after(clock_, 1200ms);

  Outcome o = engine().createOrUpdate(spec_, parked_, deadline);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(parked_.size(), 1u);
  // GET and PUT at 0 s, polls at 0.5 s and 1 s; a poll at the 1.2 s deadline would have no
  // time left, so the operation is parked instead.
  std::vector<milliseconds> want = {1200ms, 1200ms, 700ms, 200ms};
  EXPECT_EQ(cloud_.timeouts(), want);
}

TEST_F(EngineTest, ServiceDeadlineIsBoundedByTheReconcileDeadline) {
  Deadline reconcile = Deadline::after(clock_, 5s);
  EXPECT_EQ(engine().serviceDeadline(reconcile).time(), reconcile.time());
  Deadline fresh = engine().reconcileDeadline();
  EXPECT_EQ(engine().serviceDeadline(fresh).time(), clock_.steadyNow() + 12s);
  EXPECT_EQ(fresh.time(), clock_.steadyNow() + std::chrono::minutes(2));
}

TEST_F(EngineTest, ExpiredDeadlineMakesNoCallAndKeepsTheFuture) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  int calls = cloud_.polls() + cloud_.gets();

  Outcome o = engine().createOrUpdate(spec_, parked_, Deadline::after(clock_, 0ms));

  EXPECT_EQ(o.kind, Outcome::Kind::Error);
  EXPECT_EQ(o.errorCode, "DeadlineExceeded");
  EXPECT_EQ(cloud_.polls() + cloud_.gets(), calls);
  EXPECT_EQ(parked_.size(), 1u);
}

}  // namespace
}  // namespace nodewright::lro::testing
