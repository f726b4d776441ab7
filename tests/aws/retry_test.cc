#include "aws/retry.h"

#include <gtest/gtest.h>

#include <thread>

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

const ApiError kServerError{"InternalError", "", 500};
const ApiError kThrottle{"RequestLimitExceeded", "", 503};
const ApiError kTimeout{"RequestTimeout", "", 0};
const ApiError kInvalid{"InvalidParameterValue", "", 400};

RetryOptions seeded(int maxAttempts = 5) {
  RetryOptions o;
  o.maxAttempts = maxAttempts;
  o.seed = 42;
  return o;
}

TEST(RetryPolicyTest, BackoffDoublesFromItsBaseUpToTheCap) {
  RetryPolicy p(seeded());
  EXPECT_EQ(p.maxBackoff(1, false), 100ms);
  EXPECT_EQ(p.maxBackoff(2, false), 200ms);
  EXPECT_EQ(p.maxBackoff(4, false), 800ms);
  EXPECT_EQ(p.maxBackoff(1, true), 1s);
  EXPECT_EQ(p.maxBackoff(5, true), 16s);
  EXPECT_EQ(p.maxBackoff(6, true), 20s);
  EXPECT_EQ(p.maxBackoff(60, true), 20s);
}

TEST(RetryPolicyTest, JitterStaysInsideItsBounds) {
  RetryPolicy p(seeded(1000));
  for (int i = 0; i < 200; ++i) {
    RetryState s;
    s.attempts = 1 + i % 8;
    auto d = p.nextDelay(s, kServerError);
    ASSERT_TRUE(d);
    EXPECT_GE(*d, 0ns);
    EXPECT_LE(*d, p.maxBackoff(s.attempts, false));
    p.succeeded(s);  // keep the quota full
    RetryState t;
    t.attempts = 1 + i % 8;
    auto throttled = p.nextDelay(t, kThrottle);
    ASSERT_TRUE(throttled);
    // A throttled caller always slows down: at least half the bound.
    EXPECT_GE(*throttled, p.maxBackoff(t.attempts, true) / 2);
    EXPECT_LE(*throttled, p.maxBackoff(t.attempts, true));
    p.succeeded(t);
  }
}

TEST(RetryPolicyTest, SameSeedSameSchedule) {
  RetryPolicy a(seeded()), b(seeded());
  for (int attempt = 1; attempt < 5; ++attempt) {
    RetryState sa{attempt, 0}, sb{attempt, 0};
    EXPECT_EQ(a.nextDelay(sa, kServerError), b.nextDelay(sb, kServerError));
  }
}

TEST(RetryPolicyTest, StopsAtMaxAttempts) {
  RetryPolicy p(seeded(3));
  RetryState s;
  s.attempts = 1;
  EXPECT_TRUE(p.nextDelay(s, kServerError));
  s.attempts = 2;
  EXPECT_TRUE(p.nextDelay(s, kServerError));
  s.attempts = 3;
  EXPECT_FALSE(p.nextDelay(s, kServerError));
}

TEST(RetryPolicyTest, NeverRetriesWhatCannotSucceed) {
  RetryPolicy p(seeded());
  RetryState s{1, 0};
  EXPECT_FALSE(p.nextDelay(s, kInvalid));
  EXPECT_FALSE(p.nextDelay(s, {"InsufficientInstanceCapacity", "", 500}));
  EXPECT_FALSE(p.nextDelay(s, {"AuthFailure", "", 401}));
  EXPECT_EQ(p.quotaAvailable(), 500);
}

TEST(RetryPolicyTest, QuotaRunsOutAfterCapacityOverCostRetries) {
  RetryPolicy p(seeded());
  int retries = 0;
  for (int i = 0; i < 1000; ++i) {
    RetryState s{1, 0};
    if (p.nextDelay(s, kServerError)) {
      ++retries;
    }
  }
  EXPECT_EQ(retries, 500 / 5);
  EXPECT_EQ(p.quotaAvailable(), 0);
  // Timeouts cost more.
  RetryPolicy q(seeded());
  int timeoutRetries = 0;
  for (int i = 0; i < 1000; ++i) {
    RetryState s{1, 0};
    if (q.nextDelay(s, kTimeout)) {
      ++timeoutRetries;
    }
  }
  EXPECT_EQ(timeoutRetries, 500 / 10);
}

TEST(RetryPolicyTest, SuccessRefundsTheLastRetryOrAddsOne) {
  RetryOptions o = seeded();
  o.quotaCapacity = 20;
  RetryPolicy p(o);
  RetryState a{1, 0}, b{1, 0};
  ASSERT_TRUE(p.nextDelay(a, kServerError));
  ASSERT_TRUE(p.nextDelay(b, kServerError));
  EXPECT_EQ(p.quotaAvailable(), 10);
  p.succeeded(a);
  EXPECT_EQ(p.quotaAvailable(), 15);
  p.succeeded(RetryState{1, 0});  // a first-attempt success
  EXPECT_EQ(p.quotaAvailable(), 16);
  p.succeeded(b);
  p.succeeded(RetryState{1, 0});
  EXPECT_EQ(p.quotaAvailable(), 20);  // never above capacity
}

TEST(ClockSleepTest, WaitsForTheClockToAdvance) {
  core::FakeClock clock;
  const auto start = clock.steadyNow();
  std::atomic<bool> done{false};
  std::thread sleeper([&] {
    clockSleep(clock)(5s);
    done = true;
  });
  clock.advance(3s);
  EXPECT_FALSE(done.load());
  while (!done.load()) {
    clock.advance(1s);
    std::this_thread::yield();
  }
  sleeper.join();
  EXPECT_GE(clock.steadyNow() - start, 5s);
}

}  // namespace
}  // namespace nodewright::aws
