#include "emulators/engine/engine.h"

#include <gtest/gtest.h>

namespace nodewright::emulators {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr std::string_view kLaunch = "ec2:RunInstances:pending->running";

TEST(EngineTest, DueTimesComeFromTheModelScaledToRealTime) {
  core::FakeClock clock;
  Engine engine(clock, {.timeScale = 30, .seed = 1, .faults = {}});
  engine.latency().set(std::string(kLaunch), Latency::fixed(minutes(1)));
  EXPECT_EQ(engine.dueAfter(kLaunch), clock.now() + seconds(2));
}

TEST(EngineTest, ForcedLatenciesReplaceTheModel) {
  core::FakeClock clock;
  Engine engine(clock);
  engine.latency().set(std::string(kLaunch), Latency::fixed(seconds(10)));
  FaultConfig faults;
  faults.latencies.emplace(kLaunch, Latency::fixed(minutes(5)));
  engine.faults().replace(faults);
  EXPECT_EQ(engine.dueAfter(kLaunch), clock.now() + minutes(5));
}

TEST(EngineTest, ThrottlingFollowsTheFaultSwitch) {
  core::FakeClock clock;
  Engine engine(clock);
  engine.throttle().define("RunInstances", {.size = 1, .refillPerSecond = 1});
  EXPECT_TRUE(engine.admit("RunInstances", "key"));
  EXPECT_FALSE(engine.admit("RunInstances", "key"));
  FaultConfig off;
  off.throttling = false;
  engine.faults().replace(off);
  EXPECT_TRUE(engine.admit("RunInstances", "key"));
  EXPECT_TRUE(engine.admit("RunInstances", "key"));
}

TEST(EngineTest, ALaunchRunsAfterItsLatencyAndTheStatsSeeIt) {
  core::FakeClock clock;
  Engine engine(clock, {.timeScale = 10, .seed = 1, .faults = {}});
  engine.latency().set(std::string(kLaunch), Latency::fixed(seconds(50)));
  NewResource spec;
  spec.type = "instance";
  spec.idPrefix = "i";
  spec.state = "pending";
  spec.next = Transition{.to = "running", .at = engine.dueAfter(kLaunch), .keepFor = {}};
  const std::string id = engine.store().create(spec)->resource.id;
  clock.advance(seconds(5));
  EXPECT_EQ(engine.store().get("instance", id)->state, "running");
  EXPECT_EQ(engine.stats().toJson(engine.store())["live"]["instance"], 1);
}

}  // namespace
}  // namespace nodewright::emulators
