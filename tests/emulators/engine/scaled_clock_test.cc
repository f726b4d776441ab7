#include "emulators/engine/scaled_clock.h"

#include <gtest/gtest.h>

namespace nodewright::emulators {
namespace {

using std::chrono::microseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(ScaledClockTest, DividesEmulatedDurationsByTheFactor) {
  core::FakeClock clock;
  ScaledClock scaled(clock, 60);
  EXPECT_EQ(scaled.toReal(minutes(5)), seconds(5));
  EXPECT_EQ(scaled.toEmulated(seconds(5)), minutes(5));
  EXPECT_EQ(scaled.after(minutes(2)), clock.now() + seconds(2));
}

TEST(ScaledClockTest, KeepsTheBaseClocksTimestamps) {
  core::FakeClock clock;
  ScaledClock scaled(clock, 1000);
  clock.advance(seconds(7));
  EXPECT_EQ(scaled.now(), clock.now());
}

TEST(ScaledClockTest, SlowsTimeDownBelowOne) {
  core::FakeClock clock;
  ScaledClock scaled(clock, 0.5);
  EXPECT_EQ(scaled.toReal(seconds(3)), seconds(6));
}

TEST(ScaledClockTest, RoundsToMicroseconds) {
  core::FakeClock clock;
  ScaledClock scaled(clock, 3);
  EXPECT_EQ(scaled.toReal(microseconds(10)), microseconds(3));
  EXPECT_EQ(scaled.toReal(microseconds(11)), microseconds(4));
}

TEST(ScaledClockTest, RejectsFactorsThatAreNotPositiveAndFinite) {
  EXPECT_TRUE(ScaledClock::validFactor(1));
  EXPECT_TRUE(ScaledClock::validFactor(0.01));
  EXPECT_FALSE(ScaledClock::validFactor(0));
  EXPECT_FALSE(ScaledClock::validFactor(-2));
  EXPECT_FALSE(ScaledClock::validFactor(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(ScaledClock::validFactor(std::numeric_limits<double>::quiet_NaN()));
}

}  // namespace
}  // namespace nodewright::emulators
