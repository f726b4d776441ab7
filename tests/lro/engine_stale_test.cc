#include <vector>

#include <gtest/gtest.h>

#include "lro/engine.h"
#include "lro/engine_fixture.h"

// Stale futures never block (CAPZ issue 2671) and 404 ends a delete (CAPZ PR 2238).
namespace nodewright::lro::testing {
namespace {

class EngineStaleTest : public EngineTest {
 protected:
  void parkDelete() {
    cloud_.putResource(ref_.id, vnetBody());
    cloud_.setLatency(30s);
    ASSERT_EQ(engine().remove(spec_, parked_).kind, Outcome::Kind::NotDone);
    ASSERT_EQ(parked_.size(), 1u);
    ASSERT_EQ(parked_[0].key.verb, Verb::Delete);
  }
};

TEST_F(EngineStaleTest, DeleteOfMissingResourceIsDone) {
  Outcome o = engine().remove(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 1);
}

TEST_F(EngineStaleTest, DeleteFutureCompletesOnResume) {
  parkDelete();
  fake_.advance(30s);

  Outcome o = engine().remove(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_FALSE(cloud_.resource(ref_.id).has_value());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 1);
}

TEST_F(EngineStaleTest, UnknownOperationCannotBlockADelete) {
  parkDelete();
  cloud_.forget(parked_[0].resumeToken);
  cloud_.setLatency(0ms);

  Outcome o = engine().remove(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 2);
  EXPECT_EQ(counter("nodewright_lro_futures_dropped_total", {"virtualnetworks", "DELETE", "stale"}),
            1);
}

// A delete that keeps failing must show as DeletionFailed with the cloud's reason, not as
// Deleting for good; the failure is not resent in the same call, the next reconcile retries.
TEST_F(EngineStaleTest, FailedDeleteIsDeletionFailedThenSentAgain) {
  cloud_.endAs(OpStatus::Failed, "InUseSubnetCannotBeDeleted", "subnet is in use");
  parkDelete();
  fake_.advance(30s);

  Outcome failed = engine().remove(spec_, parked_);

  EXPECT_EQ(failed.kind, Outcome::Kind::Failed);
  EXPECT_EQ(failed.errorCode, "InUseSubnetCannotBeDeleted");
  EXPECT_EQ(failed.message,
            "operation DELETE on rg/vnet-1 (virtualnetworks) failed: InUseSubnetCannotBeDeleted: "
            "subnet is in use");
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 1);
  cloud_.endAs(OpStatus::Succeeded);
  cloud_.setLatency(0ms);

  Outcome o = engine().remove(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 2);
}

// A PUT of a resource whose DELETE is parked waits for the delete; once it is done the
// resource is created anew, and no old DELETE future is left for a later remove() to resume
// (it would report the new resource deleted).
TEST_F(EngineStaleTest, PutWaitsForADeleteInProgressThenCreatesAnew) {
  parkDelete();
  cloud_.setLatency(0ms);

  Outcome waiting = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(waiting.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(waiting.message,
            "operation PUT on rg/vnet-1 (virtualnetworks): a delete of the resource is in "
            "progress");
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].key.verb, Verb::Delete);
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);

  fake_.advance(30s);
  Outcome created = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(created.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_TRUE(cloud_.resource(ref_.id).has_value());

  cloud_.setLatency(30s);
  EXPECT_EQ(engine().remove(spec_, parked_).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(cloud_.begins(Verb::Delete), 2);
}

TEST_F(EngineStaleTest, FutureOfAnExternallyDeletedResourceEndsTheDelete) {
  parkDelete();
  cloud_.deleteExternally(ref_.id);

  Outcome o = engine().remove(spec_, parked_);

  // The operation is unknown, the DELETE sent again answers 404: done, no loop.
  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Delete), 2);
}

TEST_F(EngineStaleTest, DeleteDropsThePutFutureOfTheResource) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  cloud_.deleteExternally(ref_.id);

  Outcome o = engine().remove(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(
      counter("nodewright_lro_futures_dropped_total", {"virtualnetworks", "PUT", "superseded"}), 1);
}

TEST_F(EngineStaleTest, UnknownPutOperationIsReevaluated) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  cloud_.deleteExternally(ref_.id);
  cloud_.setLatency(0ms);

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
  EXPECT_EQ(cloud_.gets(), 2);
}

TEST_F(EngineStaleTest, UnreadableTokenIsStale) {
  parked_.push_back(OperationRecord{operationKey(ref_, Verb::Put), "not-a-token"});

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
}

TEST_F(EngineStaleTest, CanceledPutIsReevaluated) {
  cloud_.setLatency(30s);
  cloud_.endAs(OpStatus::Canceled);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  fake_.advance(30s);
  cloud_.endAs(OpStatus::Succeeded);
  cloud_.setLatency(0ms);

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Done);
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
}

TEST_F(EngineStaleTest, ReevaluatesAtMostOncePerCall) {
  parked_.push_back(OperationRecord{operationKey(ref_, Verb::Put), "op-404"});
  cloud_.setLatency(30s);
  cloud_.forgetAllOperations();

  Outcome o = engine().createOrUpdate(spec_, parked_);

  // The stale future is dropped and the PUT sent again; when that operation is unknown too,
  // the call ends with a transient error instead of looping.
  EXPECT_EQ(o.kind, Outcome::Kind::Error);
  EXPECT_TRUE(o.transient());
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_EQ(cloud_.polls(), 2);
  EXPECT_TRUE(parked_.empty());
}

}  // namespace
}  // namespace nodewright::lro::testing
