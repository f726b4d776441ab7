#include "core/token_bucket.h"

#include <gtest/gtest.h>

namespace nodewright::core {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(TokenBucket, BurstThenOneTokenPerInterval) {
  FakeClock clock;
  TokenBucket bucket(clock, 10, 3);
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_FALSE(bucket.tryTake());
  clock.advance(milliseconds(99));
  EXPECT_FALSE(bucket.tryTake());
  clock.advance(milliseconds(1));
  EXPECT_TRUE(bucket.tryTake());
  // Idle time saves up to the burst, no more.
  clock.advance(std::chrono::seconds(60));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(bucket.tryTake());
  }
  EXPECT_FALSE(bucket.tryTake());
}

TEST(TokenBucket, ReservationsQueueInOrder) {
  FakeClock clock;
  TokenBucket bucket(clock, 10, 1);
  EXPECT_EQ(bucket.reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.reserve(), milliseconds(100));
  EXPECT_EQ(bucket.reserve(), milliseconds(200));
  // Half a token accrues in 250 ms beyond the two already promised.
  clock.advance(milliseconds(250));
  EXPECT_EQ(bucket.reserve(), milliseconds(50));
}

TEST(ExponentialBackoff, DoublesFromTheBaseUpToTheCap) {
  ExponentialBackoff backoff{milliseconds(5), std::chrono::seconds(1000)};
  EXPECT_EQ(backoff.delay(0), milliseconds(5));
  EXPECT_EQ(backoff.delay(1), milliseconds(10));
  EXPECT_EQ(backoff.delay(10), milliseconds(5120));
  EXPECT_EQ(backoff.delay(17), milliseconds(655360));
  EXPECT_EQ(backoff.delay(18), std::chrono::seconds(1000));  // 1310.72 s is over the cap
  EXPECT_EQ(backoff.delay(500), std::chrono::seconds(1000));
}

TEST(FakeClock, WaitUntilReturnsAndTimeMovesOnlyByAdvance) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  auto start = clock.steadyNow();
  std::unique_lock lock(mu);
  clock.waitUntil(lock, cv, start + std::chrono::hours(1));
  EXPECT_EQ(clock.steadyNow(), start);
  clock.advance(std::chrono::hours(1));
  clock.waitUntil(lock, cv, start + std::chrono::hours(1));  // already due: returns at once
  EXPECT_EQ(clock.steadyNow() - start, std::chrono::hours(1));
}

}  // namespace
}  // namespace nodewright::core
