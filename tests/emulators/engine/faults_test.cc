#include "emulators/engine/faults.h"

#include <gtest/gtest.h>

namespace nodewright::emulators {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr std::string_view kYaml = R"(
seed: 7
errors:
  RunInstances:
    - code: InternalError
      message: An internal error has occurred.
      probability: 0.1
    - {code: Unavailable, probability: 0.05, status: 503}
  "*":
    - {code: ServiceUnavailable, probability: 0.01}
capacity:
  - {instanceType: p5.48xlarge, zone: us-east-1a, capacityType: on-demand}
  - {instanceType: m5.large, capacityType: spot, remaining: 3}
latencies:
  "ec2:RunInstances:pending->running": {p50: 30s, p99: 2m}
  "ec2:TerminateInstances:shutting-down->terminated": 45s
throttling: false
)";

int countErrors(Faults& faults, std::string_view action, std::string_view code, int calls) {
  int n = 0;
  for (int i = 0; i < calls; ++i) {
    auto error = faults.roll(action);
    n += error && error->code == code ? 1 : 0;
  }
  return n;
}

TEST(FaultConfigTest, ParsesYaml) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_EQ(config->seed, 7u);
  ASSERT_EQ(config->errors.at("RunInstances").size(), 2u);
  EXPECT_EQ(config->errors.at("RunInstances")[0],
            (ErrorRule{"InternalError", "An internal error has occurred.", 0.1, 0}));
  EXPECT_EQ(config->errors.at("RunInstances")[1], (ErrorRule{"Unavailable", "", 0.05, 503}));
  ASSERT_EQ(config->capacity.size(), 2u);
  EXPECT_EQ(config->capacity[0],
            (CapacityPool{"p5.48xlarge", "us-east-1a", "on-demand", std::nullopt}));
  EXPECT_EQ(config->capacity[1], (CapacityPool{"m5.large", "", "spot", 3}));
  EXPECT_EQ(config->latencies.at("ec2:RunInstances:pending->running"),
            Latency::logNormal(seconds(30), minutes(2)));
  EXPECT_EQ(config->latencies.at("ec2:TerminateInstances:shutting-down->terminated"),
            Latency::fixed(seconds(45)));
  EXPECT_FALSE(config->throttling);
}

TEST(FaultConfigTest, RendersJsonThatParsesBackTheSame) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config);
  auto again = parseFaultConfig(toJson(*config));
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(*again, *config);
}

TEST(FaultConfigTest, EmptyDocumentMeansNoFaults) {
  auto config = parseFaultConfigText("");
  ASSERT_TRUE(config);
  EXPECT_EQ(*config, FaultConfig{});
  EXPECT_TRUE(config->throttling);
}

struct BadFaults {
  std::string name;
  std::string yaml;
  std::string error;
};

class FaultConfigErrorTest : public ::testing::TestWithParam<BadFaults> {};

TEST_P(FaultConfigErrorTest, NamesTheFieldPath) {
  auto config = parseFaultConfigText(GetParam().yaml);
  ASSERT_FALSE(config);
  EXPECT_TRUE(config.error().is(core::Code::Invalid));
  EXPECT_EQ(config.error().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FaultConfigErrorTest,
    ::testing::Values(
        BadFaults{"ProbabilityAboveOne",
                  "errors:\n  RunInstances:\n    - {code: InternalError, probability: 1.5}\n",
                  "errors.RunInstances[0].probability: Invalid value: 1.5: must be from 0 to 1"},
        BadFaults{"MissingCode", "errors:\n  RunInstances:\n    - {probability: 0.5}\n",
                  "errors.RunInstances[0].code: Required value"},
        BadFaults{"RulesNotAList", "errors:\n  RunInstances: {code: X, probability: 1}\n",
                  "errors.RunInstances: Invalid value: {\"code\":\"X\",\"probability\":1}: "
                  "must be of type array"},
        BadFaults{"SharesOverOne",
                  "errors:\n  A:\n    - {code: X, probability: 0.6}\n"
                  "    - {code: Z, probability: 0.6}\n",
                  "errors.A: probabilities add up to 1.2; must be at most 1"},
        BadFaults{"BadStatus", "errors:\n  A:\n    - {code: X, probability: 0.1, status: 200}\n",
                  "errors.A[0].status: Invalid value: 200: must be an HTTP error status (400-599)"},
        BadFaults{"NegativeRemaining", "capacity:\n  - {instanceType: m5.large, remaining: -1}\n",
                  "capacity[0].remaining: Invalid value: -1: must not be negative"},
        BadFaults{"PoolTypo", "capacity:\n  - {instanceTyp: m5.large}\n",
                  "capacity[0].instanceTyp: field not declared in schema"},
        BadFaults{"BadLatency", "latencies:\n  op: {p50: 10s}\n",
                  "latencies.op.p99: Required value"},
        BadFaults{"ThrottlingNotBool", "throttling: sometimes\n",
                  "throttling: Invalid value: \"sometimes\": must be of type boolean"},
        BadFaults{"NegativeSeed", "seed: -3\n",
                  "seed: Invalid value: -3: must be a non-negative integer"},
        BadFaults{"UnknownTopLevel", "error: {}\n", "error: field not declared in schema"},
        BadFaults{"SeveralAtOnce", "throttling: 1\ncapacity: {}\n",
                  "capacity: Invalid value: {}: must be of type array; throttling: Invalid "
                  "value: 1: must be of type boolean"},
        BadFaults{"NotAMapping", "- a\n", "Invalid value: [\"a\"]: must be of type object"}),
    [](const auto& info) { return info.param.name; });

TEST(FaultsTest, InjectsErrorsAtTheConfiguredRateDeterministically) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config);
  Faults faults(*config);
  constexpr int kCalls = 20000;
  const int internal = countErrors(faults, "RunInstances", "InternalError", kCalls);
  EXPECT_NEAR(internal, kCalls * 0.1, kCalls * 0.01);

  // The same seed replays the same outcomes.
  Faults again(*config);
  EXPECT_EQ(countErrors(again, "RunInstances", "InternalError", kCalls), internal);
  // Another seed gives other outcomes at the same rate.
  config->seed = 8;
  Faults other(*config);
  const int otherCount = countErrors(other, "RunInstances", "InternalError", kCalls);
  EXPECT_NE(otherCount, internal);
  EXPECT_NEAR(otherCount, kCalls * 0.1, kCalls * 0.01);
}

TEST(FaultsTest, SplitsOneRollAcrossRulesAndCarriesTheirFields) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config);
  Faults faults(*config);
  int internal = 0;
  int unavailable = 0;
  for (int i = 0; i < 20000; ++i) {
    if (auto error = faults.roll("RunInstances")) {
      if (error->code == "InternalError") {
        ++internal;
        EXPECT_EQ(error->message, "An internal error has occurred.");
      } else {
        ASSERT_EQ(error->code, "Unavailable");
        EXPECT_EQ(error->status, 503);
        ++unavailable;
      }
    }
  }
  EXPECT_NEAR(internal, 2000, 200);
  EXPECT_NEAR(unavailable, 1000, 150);
}

TEST(FaultsTest, WildcardCoversActionsWithoutTheirOwnRules) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config);
  Faults faults(*config);
  EXPECT_NEAR(countErrors(faults, "DescribeInstances", "ServiceUnavailable", 20000), 200, 60);
  EXPECT_EQ(countErrors(faults, "RunInstances", "ServiceUnavailable", 2000), 0);
}

TEST(FaultsTest, RollsPerActionDoNotDependOnOtherActions) {
  auto config = parseFaultConfigText(kYaml);
  ASSERT_TRUE(config);
  Faults alone(*config);
  Faults interleaved(*config);
  for (int i = 0; i < 500; ++i) {
    interleaved.roll("DescribeInstances");
    auto a = alone.roll("RunInstances");
    auto b = interleaved.roll("RunInstances");
    ASSERT_EQ(a.has_value(), b.has_value()) << "call " << i;
  }
}

TEST(FaultsTest, NoRulesNoErrors) {
  Faults faults;
  EXPECT_EQ(countErrors(faults, "RunInstances", "InternalError", 1000), 0);
  EXPECT_TRUE(faults.throttling());
}

TEST(FaultsTest, CapacityPoolsRunOutAndTheFirstMatchDecides) {
  auto config = parseFaultConfigText(R"(
capacity:
  - {instanceType: p5.48xlarge, zone: us-east-1a, capacityType: on-demand}
  - {instanceType: m5.large, capacityType: spot, remaining: 3}
  - {zone: us-east-1c, capacityType: "*", remaining: 0}
)");
  ASSERT_TRUE(config) << config.error().message();
  Faults faults(*config);
  // Listed without a count: never any capacity there.
  EXPECT_EQ(faults.takeCapacity({"p5.48xlarge", "us-east-1a", "on-demand"}, 1), 0);
  // Another zone or capacity type of the same instance type is a different pool.
  EXPECT_EQ(faults.takeCapacity({"p5.48xlarge", "us-east-1b", "on-demand"}, 2), 2);
  EXPECT_EQ(faults.takeCapacity({"p5.48xlarge", "us-east-1a", "spot"}, 1), 1);
  // Three more spot m5.large in any zone, then none.
  EXPECT_EQ(faults.takeCapacity({"m5.large", "us-east-1a", "spot"}, 2), 2);
  EXPECT_EQ(faults.takeCapacity({"m5.large", "us-east-1b", "spot"}, 5), 1);
  EXPECT_EQ(faults.takeCapacity({"m5.large", "us-east-1b", "spot"}, 1), 0);
  EXPECT_EQ(faults.takeCapacity({"m5.large", "us-east-1b", "on-demand"}, 1), 1);
  // The zone-wide pool is empty for everything else.
  EXPECT_EQ(faults.takeCapacity({"c5.large", "us-east-1c", "on-demand"}, 1), 0);
  // The configuration shows what is left.
  EXPECT_EQ(faults.config().capacity[1].remaining, 0);
}

TEST(FaultsTest, ALaunchTakesAtLeastItsMinimumOrNothingAndReturnsWhatItDidNotUse) {
  auto config = parseFaultConfigText(R"(
capacity:
  - {instanceType: m5.large, remaining: 5}
  - {instanceType: p5.48xlarge}
)");
  ASSERT_TRUE(config) << config.error().message();
  Faults faults(*config);
  const CapacityKey m5{"m5.large", "us-east-1a", "on-demand"};
  EXPECT_EQ(remainingCapacity(faults.config(), m5), 5);
  EXPECT_EQ(remainingCapacity(faults.config(), {"p5.48xlarge", "us-east-1a", "spot"}), 0);
  EXPECT_EQ(remainingCapacity(faults.config(), {"c5.large", "us-east-1a", "spot"}), std::nullopt);

  // Fewer than the minimum are left: nothing is taken.
  EXPECT_EQ(faults.takeCapacity(m5, 10, 6), 0);
  EXPECT_EQ(remainingCapacity(faults.config(), m5), 5);
  EXPECT_EQ(faults.takeCapacity(m5, 10, 2), 5);
  EXPECT_EQ(remainingCapacity(faults.config(), m5), 0);
  // Two of them could not launch after all.
  faults.returnCapacity(m5, 2);
  EXPECT_EQ(remainingCapacity(faults.config(), m5), 2);
  // A pool without capacity stays without; an unlimited one stays unlimited.
  faults.returnCapacity({"p5.48xlarge", "us-east-1a", "spot"}, 3);
  EXPECT_EQ(remainingCapacity(faults.config(), {"p5.48xlarge", "us-east-1a", "spot"}), 0);
}

TEST(FaultsTest, ReplaceSwapsTheWholeConfigurationAndResetsItsState) {
  Faults faults(*parseFaultConfigText("capacity:\n  - {instanceType: m5.large, remaining: 1}\n"));
  EXPECT_EQ(faults.takeCapacity({"m5.large", "a", "spot"}, 1), 1);
  EXPECT_EQ(faults.takeCapacity({"m5.large", "a", "spot"}, 1), 0);
  ASSERT_TRUE(faults.replace(api::Json::parse(R"({"capacity": [{"instanceType": "m5.large",
      "remaining": 1}], "throttling": false, "latencies": {"op": "5s"}})")));
  EXPECT_EQ(faults.takeCapacity({"m5.large", "a", "spot"}, 1), 1);
  EXPECT_FALSE(faults.throttling());
  EXPECT_EQ(faults.forcedLatency("op"), Latency::fixed(seconds(5)));
  EXPECT_EQ(faults.forcedLatency("other"), std::nullopt);

  auto bad = faults.replace(api::Json::parse(R"({"throttling": "no"})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "throttling: Invalid value: \"no\": must be of type boolean");
  EXPECT_FALSE(faults.throttling());  // the previous configuration stays
}

}  // namespace
}  // namespace nodewright::emulators
