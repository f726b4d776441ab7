#include "aws/rate_limiter.h"

#include <gtest/gtest.h>

#include "emulators/ec2/action.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

class RateLimiterTest : public ::testing::Test {
 protected:
  // Waiting advances the fake clock, so a test runs all its waits instantly.
  SleepFn advancing() {
    return [this](nanoseconds d) {
      slept_ += d;
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d) + 1us);
    };
  }
  std::chrono::steady_clock::time_point far() const { return clock_.steadyNow() + 1h; }

  core::FakeClock clock_;
  nanoseconds slept_{0};
};

TEST_F(RateLimiterTest, MapsActionsToTheEmulatorsBucketClasses) {
  emulators::ec2::ActionTable table;
  emulators::ec2::addDescribeActions(table);
  emulators::ec2::addLaunchTemplateActions(table);
  emulators::ec2::addInstanceActions(table);
  ASSERT_FALSE(table.empty());
  for (const auto& [action, entry] : table) {
    EXPECT_EQ(ec2BucketClass(action), entry.bucketClass) << action;
  }
  EXPECT_EQ(ec2BucketClass("ModifyInstanceAttribute"), ec2bucket::kMutating);
  EXPECT_EQ(ec2BucketClass("GetConsoleOutput"), ec2bucket::kDescribe);
}

TEST_F(RateLimiterTest, KeepsUnderAwsByTheFactor) {
  auto limiter = RateLimiter::ec2(clock_, {0.9});
  auto run = limiter->effectiveLimits("RunInstances");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->size, 4);  // floor(5 * 0.9)
  EXPECT_DOUBLE_EQ(run->refillPerSecond, 1.8);
  auto describe = limiter->effectiveLimits("DescribeInstances");
  ASSERT_TRUE(describe);
  EXPECT_EQ(describe->size, 90);
  EXPECT_DOUBLE_EQ(describe->refillPerSecond, 18);
}

TEST_F(RateLimiterTest, BurstPassesThenCallsWaitForTheRefill) {
  auto limiter = RateLimiter::ec2(clock_, {0.9});
  const auto start = clock_.steadyNow();
  for (int i = 0; i < 4; ++i) {
    auto waited = limiter->acquire("RunInstances", far(), advancing());
    ASSERT_TRUE(waited);
    EXPECT_EQ(*waited, 0ns) << i;
  }
  for (int i = 0; i < 18; ++i) {
    auto waited = limiter->acquire("RunInstances", far(), advancing());
    ASSERT_TRUE(waited);
    EXPECT_GT(*waited, 0ns) << i;
    EXPECT_LE(*waited, 1s / 1.8 + 1ms) << i;
  }
  // 18 tokens earned at 1.8/s: about ten seconds, never faster than the bucket allows.
  const auto elapsed = clock_.steadyNow() - start;
  EXPECT_GE(elapsed, 10s - 1ms);
  EXPECT_LE(elapsed, 10s + 100ms);
}

TEST_F(RateLimiterTest, ClassesAreIndependent) {
  auto limiter = RateLimiter::ec2(clock_, {0.9});
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(limiter->acquire("RunInstances", far(), advancing()));
  }
  auto describe = limiter->acquire("DescribeInstances", far(), advancing());
  ASSERT_TRUE(describe);
  EXPECT_EQ(*describe, 0ns);
}

TEST_F(RateLimiterTest, FailsAtOnceWhenTheTokenComesAfterTheDeadline) {
  auto limiter = RateLimiter::ec2(clock_, {0.9});
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(limiter->acquire("RunInstances", far(), advancing()));
  }
  auto late = limiter->acquire("RunInstances", clock_.steadyNow() + 100ms, advancing());
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, "ClientRateLimited");
  EXPECT_EQ(slept_, 0ns);
}

TEST_F(RateLimiterTest, UnknownClassesAreNotLimited) {
  RateLimiter limiter(clock_, {{"only", {1, 1}}},
                      [](std::string_view a) { return a == "A" ? "only" : "other"; });
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(limiter.acquire("B", far(), advancing()));
  }
  EXPECT_EQ(slept_, 0ns);
}

}  // namespace
}  // namespace nodewright::aws
