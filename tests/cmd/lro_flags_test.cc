// The futures engine's flags: Go durations, the defaults of seed 004 (call 2 s, service 12 s),
// and clear errors that name the flag.
#include "cmd/lro_flags.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

namespace nodewright::cmd {
namespace {

using std::chrono::milliseconds;

core::Result<lro::EngineOptions> parse(std::vector<std::string> args) {
  CLI::App app;
  LroFlags flags;
  addLroFlags(app, flags);
  args.insert(args.begin(), "nodewright");
  std::vector<const char*> argv;
  for (const auto& a : args) {
    argv.push_back(a.c_str());
  }
  app.parse(static_cast<int>(argv.size()), argv.data());
  return lroOptions(flags);
}

TEST(LroFlagsTest, DefaultsAreTheSeedsTimeouts) {
  auto options = parse({});
  ASSERT_TRUE(options) << options.error().message();
  EXPECT_EQ(options->timeouts.call, milliseconds(2000));
  EXPECT_EQ(options->timeouts.service, milliseconds(12000));
  EXPECT_EQ(options->timeouts.reconcile, milliseconds(120000));
  EXPECT_EQ(options->timeouts.requeue, milliseconds(15000));
  EXPECT_TRUE(options->adaptive.enabled);
  EXPECT_EQ(options->adaptive.min, milliseconds(500));
  EXPECT_EQ(options->adaptive.max, milliseconds(10000));
}

TEST(LroFlagsTest, ReadsEveryFlag) {
  auto options = parse({"--azure-call-timeout", "3s", "--azure-service-timeout", "30s",
                        "--azure-reconcile-timeout", "5m", "--azure-requeue-after", "20s",
                        "--no-azure-adaptive-timeouts", "--azure-adaptive-timeout-min", "750ms",
                        "--azure-adaptive-timeout-max", "20s"});
  ASSERT_TRUE(options) << options.error().message();
  EXPECT_EQ(options->timeouts.call, milliseconds(3000));
  EXPECT_EQ(options->timeouts.service, milliseconds(30000));
  EXPECT_EQ(options->timeouts.reconcile, milliseconds(300000));
  EXPECT_EQ(options->timeouts.requeue, milliseconds(20000));
  EXPECT_FALSE(options->adaptive.enabled);
  EXPECT_EQ(options->adaptive.min, milliseconds(750));
  EXPECT_EQ(options->adaptive.max, milliseconds(20000));
}

TEST(LroFlagsTest, RefusesWhatIsNotAPositiveDurationNamingTheFlag) {
  auto garbled = parse({"--azure-service-timeout", "twelve"});
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().message(),
            "--azure-service-timeout: \"twelve\" is not a duration (like 500ms, 12s or 2m)");
  auto zero = parse({"--azure-requeue-after", "0s"});
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(), "--azure-requeue-after: must be at least 1ms, got \"0s\"");
}

TEST(LroFlagsTest, RefusesACallLongerThanItsServiceOrAMinAboveTheMax) {
  auto call = parse({"--azure-call-timeout", "20s"});
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().message(),
            "--azure-call-timeout: must not exceed --azure-service-timeout");
  auto service = parse({"--azure-service-timeout", "3m"});
  ASSERT_FALSE(service);
  EXPECT_EQ(service.error().message(),
            "--azure-service-timeout: must not exceed --azure-reconcile-timeout");
  auto bounds = parse({"--azure-adaptive-timeout-min", "20s"});
  ASSERT_FALSE(bounds);
  EXPECT_EQ(bounds.error().message(),
            "--azure-adaptive-timeout-min: must not exceed --azure-adaptive-timeout-max");
}

TEST(LroFlagsTest, KeepsTheAdaptiveBoundsWithinTheServiceAndTheCallWithinThem) {
  auto max = parse({"--azure-adaptive-timeout-max", "15s"});
  ASSERT_FALSE(max);
  EXPECT_EQ(max.error().message(),
            "--azure-adaptive-timeout-max: must not exceed --azure-service-timeout");
  auto call = parse({"--azure-call-timeout", "800ms", "--azure-adaptive-timeout-min", "1s"});
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().message(),
            "--azure-call-timeout: must lie between --azure-adaptive-timeout-min and "
            "--azure-adaptive-timeout-max while adaptive timeouts are on");
  auto fixed = parse({"--azure-call-timeout", "800ms", "--azure-adaptive-timeout-min", "1s",
                      "--no-azure-adaptive-timeouts"});
  ASSERT_TRUE(fixed) << fixed.error().message();
  EXPECT_EQ(fixed->timeouts.call, milliseconds(800));
}

// The ARM client sends no request with less than 250 ms left, and may fetch a token first:
// shorter calls would all fail without trying.
TEST(LroFlagsTest, RefusesCallTimeoutsTooShortForARequestNamingTheFlag) {
  auto call = parse({"--azure-call-timeout", "300ms", "--no-azure-adaptive-timeouts"});
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().message(),
            "--azure-call-timeout: must be at least 500ms (a request needs 250ms and a token may "
            "come first), got \"300ms\"");
  auto min = parse({"--azure-adaptive-timeout-min", "499ms"});
  ASSERT_FALSE(min);
  EXPECT_EQ(min.error().message(),
            "--azure-adaptive-timeout-min: must be at least 500ms (a request needs 250ms and a "
            "token may come first), got \"499ms\"");
  auto floor = parse({"--azure-call-timeout", "500ms", "--azure-adaptive-timeout-min", "500ms"});
  ASSERT_TRUE(floor) << floor.error().message();
  EXPECT_EQ(floor->timeouts.call, milliseconds(500));
  EXPECT_EQ(floor->adaptive.min, milliseconds(500));
}

}  // namespace
}  // namespace nodewright::cmd
