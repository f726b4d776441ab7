#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "lro/engine.h"
#include "lro/engine_fixture.h"

namespace nodewright::lro::testing {
namespace {

using Kind = CallError::Kind;
using Method = FakeOperations::Method;

TEST_F(EngineTest, AnotherOperationInProgressIsNotDone) {
  cloud_.failNext(Method::Begin,
                  FakeOperations::error(Kind::Conflict, "AnotherOperationInProgress"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.errorCode, "AnotherOperationInProgress");
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(15s));
  EXPECT_TRUE(parked_.empty());
}

TEST_F(EngineTest, ThrottlingIsNotDoneWithTheCloudsRetryAfter) {
  cloud_.failNext(Method::Get, FakeOperations::error(Kind::Throttled, "TooManyRequests", 3s));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.errorCode, "TooManyRequests");
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(3s));
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);
}

TEST_F(EngineTest, ThrottledPollKeepsTheFuture) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  std::string token = parked_.at(0).resumeToken;
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Throttled, "TooManyRequests", 9s));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(9s));
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].resumeToken, token);
}

TEST_F(EngineTest, TransientPollErrorKeepsTheFuture) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Transient, "InternalServerError"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Error);
  EXPECT_TRUE(o.transient());
  EXPECT_EQ(o.errorCode, "InternalServerError");
  EXPECT_EQ(parked_.size(), 1u);
}

TEST_F(EngineTest, TransientPollErrorWithinTheWindowParksTheOperation) {
  cloud_.setLatency(30s);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Transient, "GatewayTimeout"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  ASSERT_EQ(parked_.size(), 1u);
  EXPECT_EQ(parked_[0].resumeToken, cloud_.lastToken());
}

TEST_F(EngineTest, TransientPollErrorWithinTheWindowKeepsTheRetryAfter) {
  cloud_.setLatency(30s);
  cloud_.setRetryAfter(1500ms);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Transient, "GatewayTimeout"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  // The error said nothing about when to look again; the operation had.
  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(1500ms));
  EXPECT_EQ(parked_.size(), 1u);
}

// A poll the status monitor refuses (a 4xx other than 404/409/429, or a client misconfigured
// for it) will not pass by being sent again. As CAPZ drops a future whose resumed poller errs,
// the operation is not recorded: the refusal is reported as a transient Error (back off) and the
// next call begins the request afresh, which the cloud may accept (ARM's PUT is idempotent).
TEST_F(EngineTest, RefusedPollWithinTheWindowRecordsNothing) {
  cloud_.setLatency(30s);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Invalid, "InsecureEndpoint"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Error);
  EXPECT_EQ(o.errorCode, "InsecureEndpoint");
  EXPECT_EQ(o.requeueAfter, std::nullopt);
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
}

TEST_F(EngineTest, PollRefusedWithA4xxOnResumeDropsTheRecordAndTheNextCallBeginsAfresh) {
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  const std::string token = parked_.at(0).resumeToken;
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Invalid, "BadRequest"));

  Outcome refused = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(refused.kind, Outcome::Kind::Error);
  EXPECT_TRUE(refused.transient());
  EXPECT_EQ(refused.errorCode, "BadRequest");
  EXPECT_EQ(refused.message.find("operation PUT on rg/vnet-1 (virtualnetworks): polling"), 0u)
      << refused.message;
  EXPECT_TRUE(parked_.empty()) << "a refused poll must not be resumed for good";
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_EQ(counter("nodewright_lro_futures_dropped_total", {"virtualnetworks", "PUT", "refused"}),
            1);

  Outcome again = engine().createOrUpdate(spec_, parked_);

  // The PUT is sent again; the cloud still runs the first operation, so it meets a 409.
  EXPECT_EQ(again.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(again.errorCode, "AnotherOperationInProgress");
  EXPECT_EQ(cloud_.begins(Verb::Put), 2);
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(cloud_.lastToken(), token) << "no new operation while the first one runs";
}

TEST_F(EngineTest, DeletePollRefusedAsUnauthorizedIsSentAgainByTheNextCall) {
  cloud_.putResource(ref_.id, vnetBody());
  cloud_.setLatency(30s);
  ASSERT_EQ(engine().remove(spec_, parked_).kind, Outcome::Kind::NotDone);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::Auth, "AuthorizationFailed"));

  Outcome refused = engine().remove(spec_, parked_);

  EXPECT_EQ(refused.kind, Outcome::Kind::Error);
  EXPECT_EQ(refused.errorCode, "AuthorizationFailed");
  EXPECT_TRUE(parked_.empty());
  EXPECT_EQ(engine().remove(spec_, parked_).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(cloud_.begins(Verb::Delete), 2);
}

TEST_F(EngineTest, UnreadableTokenWithinTheWindowIsFailedWithoutASecondPut) {
  cloud_.setLatency(30s);
  cloud_.failNext(Method::Poll, FakeOperations::error(Kind::BadToken, "InvalidResumeToken"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Failed);
  EXPECT_EQ(o.errorCode, "InvalidResumeToken");
  EXPECT_EQ(cloud_.begins(Verb::Put), 1);
  EXPECT_TRUE(parked_.empty());
}

// Retry-After: 0 (or an HTTP date in the past) must still bring the object back: a zero
// requeue counts as "finished" for the reconciler and the operation would never be resumed.
TEST_F(EngineTest, ZeroRetryAfterOfAParkedOperationStillRequeues) {
  cloud_.setLatency(30s);
  cloud_.setRetryAfter(0ms);

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(o.requeueAfter, std::optional<milliseconds>(1s));
  EXPECT_EQ(parked_.size(), 1u);
}

TEST_F(EngineTest, ZeroRetryAfterOfAThrottleOrErrorStillRequeues) {
  cloud_.failNext(Method::Get, FakeOperations::error(Kind::Throttled, "TooManyRequests", 0ms));
  Outcome throttled = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(throttled.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(throttled.requeueAfter, std::optional<milliseconds>(1s));

  cloud_.failNext(Method::Get, FakeOperations::error(Kind::Transient, "ServerBusy", 0ms));
  Outcome busy = engine().createOrUpdate(spec_, parked_);
  EXPECT_EQ(busy.kind, Outcome::Kind::Error);
  EXPECT_EQ(busy.requeueAfter, std::optional<milliseconds>(1s));

  // Without a Retry-After an error leaves the back-off to the caller.
  cloud_.failNext(Method::Get, FakeOperations::error(Kind::Transient, "ServerBusy"));
  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).requeueAfter, std::nullopt);
}

TEST_F(EngineTest, RefusedRequestIsFailed) {
  cloud_.failNext(Method::Begin, FakeOperations::error(Kind::Invalid, "InvalidAddressPrefix"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Failed);
  EXPECT_EQ(o.errorCode, "InvalidAddressPrefix");
}

TEST_F(EngineTest, SpecErrorIsFailedWithoutAPut) {
  spec_.failWith(core::Error::invalid("subnet cidr outside the vnet"));

  Outcome o = engine().createOrUpdate(spec_, parked_);

  EXPECT_EQ(o.kind, Outcome::Kind::Failed);
  EXPECT_EQ(o.errorCode, "Invalid");
  EXPECT_EQ(cloud_.begins(Verb::Put), 0);
}

// The outcomes a CAPZ service turns into Creating -> True -> Deleting -> Deleted
// (controllers/capz/conditions.h).
TEST_F(EngineTest, OutcomesGoFromNotDoneToDoneForACreateThenADelete) {
  cloud_.setLatency(30s);

  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::NotDone);
  fake_.advance(30s);
  EXPECT_EQ(engine().createOrUpdate(spec_, parked_).kind, Outcome::Kind::Done);
  Outcome deleting = engine().remove(spec_, parked_);
  EXPECT_EQ(deleting.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(deleting.message, "operation DELETE on rg/vnet-1 (virtualnetworks) is not done");
  fake_.advance(30s);
  EXPECT_EQ(engine().remove(spec_, parked_).kind, Outcome::Kind::Done);
  EXPECT_TRUE(parked_.empty());
}

// Records every log record's level and text.
class CapturingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::pair<spdlog::level::level_enum, std::string>> records() {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    records_.emplace_back(msg.level, std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  std::vector<std::pair<spdlog::level::level_enum, std::string>> records_;
};

TEST_F(EngineTest, NotDoneIsNeverLoggedAboveDebug) {
  auto sink = std::make_shared<CapturingSink>();
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", sink);
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);

  cloud_.setLatency(30s);
  Outcome parked = engine().createOrUpdate(spec_, parked_);
  fake_.advance(15s);
  Outcome resumed = engine().createOrUpdate(spec_, parked_);
  cloud_.failNext(Method::Poll,
                  FakeOperations::error(Kind::Conflict, "AnotherOperationInProgress"));
  Outcome busy = engine().createOrUpdate(spec_, parked_);
  spdlog::set_default_logger(previous);

  EXPECT_EQ(parked.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(resumed.kind, Outcome::Kind::NotDone);
  EXPECT_EQ(busy.kind, Outcome::Kind::NotDone);
  int notDoneLines = 0;
  for (const auto& [level, text] : sink->records()) {
    EXPECT_LT(level, spdlog::level::warn) << text;
    EXPECT_EQ(level, spdlog::level::debug) << text;
    notDoneLines += text.find("not done") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(notDoneLines, 3);
  EXPECT_EQ(counter("nodewright_lro_not_done_total", {"virtualnetworks", "PUT"}), 3);
}

// On the system clock: stop() must end a real wait. The call runs on a detached thread that
// owns everything it touches, so a broken stop() fails the test after 30 s instead of hanging
// it for the 10-minute window.
TEST(EngineStopTest, StopEndsAWindowAndParksTheOperation) {
  struct Run {
    Run() : cloud(core::systemClock()), spec(vnetRef(), vnetBody()) {}
    FakeOperations cloud;
    TestSpec spec;
    std::unique_ptr<Engine> engine;
    OperationRecords futures;
    std::mutex mu;
    std::condition_variable cv;
    std::optional<Outcome> outcome;  // GUARDED_BY(mu)
  };
  auto run = std::make_shared<Run>();
  run->cloud.setLatency(std::chrono::hours(1));
  EngineOptions options;
  options.adaptive.enabled = false;
  options.timeouts.call = std::chrono::minutes(10);
  options.pollInterval = std::chrono::minutes(5);
  run->engine = std::make_unique<Engine>(run->cloud, core::systemClock(), options);
  auto start = std::chrono::steady_clock::now();

  std::thread([run] {
    Outcome o = run->engine->createOrUpdate(run->spec, run->futures);
    std::lock_guard<std::mutex> lock(run->mu);
    run->outcome = std::move(o);
    run->cv.notify_all();
  }).detach();
  for (auto until = start + 30s; run->cloud.begins(Verb::Put) == 0;) {
    ASSERT_LT(std::chrono::steady_clock::now(), until) << "the PUT was never sent";
    std::this_thread::yield();
  }
  run->engine->stop();
  std::unique_lock<std::mutex> lock(run->mu);
  ASSERT_TRUE(run->cv.wait_for(lock, 30s, [&] { return run->outcome.has_value(); }))
      << "stop() did not end the window";

  EXPECT_EQ(run->outcome->kind, Outcome::Kind::NotDone);
  EXPECT_EQ(run->futures.size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

}  // namespace
}  // namespace nodewright::lro::testing
