// Resources more than one reconcile works on: one a dead process began (its future never
// stored), and one that two reconciles both find missing.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "lro/engine_fixture.h"
#include "support/kube/objects.h"

namespace nodewright::lro::testing {
namespace {

TEST_F(EngineTest, UpToDateResourceStillBeingBuiltIsNotDone) {
  // What a process that died after its PUT left behind: the resource, mid-creation, and no
  // future for its operation.
  api::Json creating = vnetBody();
  creating["properties"]["provisioningState"] = "Creating";
  cloud_.putResource(ref_.id, creating);

  Outcome first = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(first.kind, Outcome::Kind::NotDone) << first.message;
  EXPECT_NE(first.message.find("is Creating"), std::string::npos) << first.message;
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);  // nothing sent again
  EXPECT_TRUE(parked_.empty());

  api::Json built = vnetBody();
  built["properties"]["provisioningState"] = "Succeeded";
  cloud_.putResource(ref_.id, built);
  Outcome later = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(later.kind, Outcome::Kind::Done) << later.message;
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);
}

TEST_F(EngineTest, TwoCallsForOneMissingResourceSendOnePut) {
  std::mutex mu;
  std::condition_variable cv;
  int inParameters = 0;
  bool released = false;
  spec_.onParameters([&] {
    std::unique_lock lock(mu);
    ++inParameters;
    cv.notify_all();
    cv.wait(lock, [&] { return released; });
  });
  OperationRecords otherFutures;  // another object's status
  Outcome firstOutcome;
  Outcome secondOutcome;
  std::thread first([&] { firstOutcome = engine().createOrUpdate(spec_, parked_); });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return inParameters == 1; });
  }
  std::thread second([&] { secondOutcome = engine().createOrUpdate(spec_, otherFutures); });
  // The second call must not get as far as computing a body while the first holds the
  // resource; given the time to, a broken engine would.
  {
    std::unique_lock lock(mu);
    EXPECT_FALSE(cv.wait_for(lock, std::chrono::milliseconds(200), [&] {
      return inParameters > 1;
    })) << "two calls evaluated one resource at once";
    released = true;
    cv.notify_all();
  }
  first.join();
  second.join();
  EXPECT_EQ(firstOutcome.kind, Outcome::Kind::Done) << firstOutcome.message;
  EXPECT_EQ(secondOutcome.kind, Outcome::Kind::Done) << secondOutcome.message;
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
}

}  // namespace
}  // namespace nodewright::lro::testing
