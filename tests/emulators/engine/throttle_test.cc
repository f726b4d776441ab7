#include "emulators/engine/throttle.h"

#include <gtest/gtest.h>

namespace nodewright::emulators {
namespace {

using std::chrono::milliseconds;

class ThrottleTest : public ::testing::Test {
 protected:
  int allowedInBurst(std::string_view bucketClass, std::string_view caller, int tries) {
    int n = 0;
    for (int i = 0; i < tries; ++i) {
      n += throttle_.allow(bucketClass, caller) ? 1 : 0;
    }
    return n;
  }

  core::FakeClock clock_;
  Throttle throttle_{clock_};
};

TEST_F(ThrottleTest, BurstDrainsTheBucketAndTheRefillLetsRequestsThrough) {
  throttle_.define("RunInstances", {.size = 5, .refillPerSecond = 2});
  EXPECT_EQ(allowedInBurst("RunInstances", "AKIDEXAMPLE", 20), 5);
  clock_.advance(milliseconds(499));
  EXPECT_FALSE(throttle_.allow("RunInstances", "AKIDEXAMPLE"));
  clock_.advance(milliseconds(1));
  EXPECT_TRUE(throttle_.allow("RunInstances", "AKIDEXAMPLE"));
  EXPECT_FALSE(throttle_.allow("RunInstances", "AKIDEXAMPLE"));
  // A long pause refills to the bucket size, no more.
  clock_.advance(std::chrono::minutes(1));
  EXPECT_EQ(allowedInBurst("RunInstances", "AKIDEXAMPLE", 20), 5);
}

TEST_F(ThrottleTest, CallersAndClassesHaveSeparateBuckets) {
  throttle_.define("RunInstances", {.size = 5, .refillPerSecond = 2});
  throttle_.define("Describe", {.size = 100, .refillPerSecond = 20});
  EXPECT_EQ(allowedInBurst("RunInstances", "alice", 10), 5);
  EXPECT_EQ(allowedInBurst("RunInstances", "bob", 10), 5);
  EXPECT_EQ(allowedInBurst("Describe", "alice", 150), 100);
}

TEST_F(ThrottleTest, UndefinedClassesDoNotLimit) {
  EXPECT_EQ(allowedInBurst("Unlisted", "alice", 1000), 1000);
}

TEST_F(ThrottleTest, RedefiningAClassStartsItsBucketsFull) {
  throttle_.define("Mutating", {.size = 2, .refillPerSecond = 1});
  EXPECT_EQ(allowedInBurst("Mutating", "alice", 5), 2);
  throttle_.define("Mutating", {.size = 4, .refillPerSecond = 1});
  EXPECT_EQ(allowedInBurst("Mutating", "alice", 10), 4);
}

}  // namespace
}  // namespace nodewright::emulators
