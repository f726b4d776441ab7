#include "emulators/engine/latency.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace nodewright::emulators {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kLaunch = "ec2:RunInstances:pending->running";

std::vector<microseconds> samples(LatencyModel& model, std::string_view op, int n) {
  std::vector<microseconds> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(model.sample(op));
  }
  return out;
}

microseconds quantile(std::vector<microseconds> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

TEST(LatencyModelTest, FixedLatencyIsExact) {
  LatencyModel model(1);
  model.set(std::string(kLaunch), Latency::fixed(seconds(30)));
  EXPECT_EQ(model.sample(kLaunch), seconds(30));
  EXPECT_EQ(model.sample(kLaunch), seconds(30));
}

TEST(LatencyModelTest, UnknownOperationsUseTheFallback) {
  LatencyModel model(1, Latency::fixed(seconds(2)));
  EXPECT_EQ(model.sample("anything"), seconds(2));
  EXPECT_EQ(model.lookup("anything"), Latency::fixed(seconds(2)));
}

TEST(LatencyModelTest, UniformStaysInRangeAndSpreadsEvenly) {
  LatencyModel model(7);
  model.set(std::string(kLaunch), Latency::uniform(seconds(10), seconds(20)));
  auto values = samples(model, kLaunch, 20000);
  for (microseconds v : values) {
    ASSERT_GE(v, seconds(10));
    ASSERT_LE(v, seconds(20));
  }
  EXPECT_NEAR(std::chrono::duration<double>(quantile(values, 0.5)).count(), 15, 0.2);
  EXPECT_NEAR(std::chrono::duration<double>(quantile(values, 0.1)).count(), 11, 0.2);
}

TEST(LatencyModelTest, LogNormalHasTheConfiguredMedianAndP99) {
  LatencyModel model(42);
  model.set(std::string(kLaunch), Latency::logNormal(seconds(8), seconds(40)));
  auto values = samples(model, kLaunch, 50000);
  EXPECT_NEAR(std::chrono::duration<double>(quantile(values, 0.5)).count(), 8, 8 * 0.03);
  EXPECT_NEAR(std::chrono::duration<double>(quantile(values, 0.99)).count(), 40, 40 * 0.08);
  EXPECT_GT(*std::min_element(values.begin(), values.end()), microseconds(0));
}

TEST(LatencyModelTest, SameSeedGivesTheSameSequence) {
  LatencyModel a(5);
  LatencyModel b(5);
  LatencyModel c(6);
  for (LatencyModel* m : {&a, &b, &c}) {
    m->set(std::string(kLaunch), Latency::uniform(seconds(0), seconds(100)));
  }
  auto fromA = samples(a, kLaunch, 50);
  EXPECT_EQ(fromA, samples(b, kLaunch, 50));
  EXPECT_NE(fromA, samples(c, kLaunch, 50));
}

TEST(LatencyModelTest, OperationsDrawFromIndependentStreams) {
  LatencyModel alone(9);
  LatencyModel interleaved(9);
  for (LatencyModel* m : {&alone, &interleaved}) {
    m->set(std::string(kLaunch), Latency::uniform(seconds(0), seconds(100)));
    m->set("other", Latency::uniform(seconds(0), seconds(100)));
  }
  std::vector<microseconds> expected = samples(alone, kLaunch, 20);
  std::vector<microseconds> got;
  for (int i = 0; i < 20; ++i) {
    interleaved.sample("other");
    got.push_back(interleaved.sample(kLaunch));
  }
  EXPECT_EQ(got, expected);
}

TEST(LatencyModelTest, ConfiguresFromJsonInEveryForm) {
  LatencyModel model(1);
  auto ok = model.configure(api::Json::parse(R"({
    "a": "1m30s",
    "b": {"fixed": "250ms"},
    "c": {"min": "1s", "max": "3s"},
    "d": {"p50": "8s", "p99": "20s"}
  })"));
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(model.lookup("a"), Latency::fixed(seconds(90)));
  EXPECT_EQ(model.lookup("b"), Latency::fixed(milliseconds(250)));
  EXPECT_EQ(model.lookup("c"), Latency::uniform(seconds(1), seconds(3)));
  EXPECT_EQ(model.lookup("d"), Latency::logNormal(seconds(8), seconds(20)));
  EXPECT_EQ(model.toJson()["a"], "1m30s");
  EXPECT_EQ(model.toJson()["d"]["p99"], "20s");
}

struct BadLatency {
  std::string name;
  std::string json;
  std::string error;
};

class LatencyConfigErrorTest : public ::testing::TestWithParam<BadLatency> {};

TEST_P(LatencyConfigErrorTest, NamesTheFieldPathAndKeepsTheOldEntries) {
  LatencyModel model(1);
  model.set("kept", Latency::fixed(seconds(1)));
  auto result = model.configure(api::Json::parse(GetParam().json), api::FieldPath("latencies"));
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().is(core::Code::Invalid));
  EXPECT_EQ(result.error().message(), GetParam().error);
  EXPECT_EQ(model.lookup("kept"), Latency::fixed(seconds(1)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LatencyConfigErrorTest,
    ::testing::Values(
        BadLatency{"NotADuration", R"({"op": "soon"})",
                   R"(latencies.op: Invalid value: "soon": must be a duration such as "30s")"},
        BadLatency{"Negative", R"({"op": {"fixed": "-1s"}})",
                   R"(latencies.op.fixed: Invalid value: "-1s": must not be negative)"},
        BadLatency{"MaxBelowMin", R"({"op": {"min": "5s", "max": "1s"}})",
                   R"(latencies.op.max: Invalid value: "1s": must not be below min)"},
        BadLatency{"MissingMax", R"({"op": {"min": "5s"}})", "latencies.op.max: Required value"},
        BadLatency{"P99BelowP50", R"({"op": {"p50": "5s", "p99": "1s"}})",
                   R"(latencies.op.p99: Invalid value: "1s": must not be below p50)"},
        BadLatency{"TwoKinds", R"({"op": {"fixed": "1s", "p50": "1s", "p99": "2s"}})",
                   "latencies.op: must set exactly one of fixed, {min, max} or {p50, p99}"},
        BadLatency{"UnknownField", R"({"op": {"median": "1s"}})",
                   "latencies.op.median: field not declared in schema"},
        BadLatency{"NotAnObject", R"([1])",
                   "latencies: Invalid value: [1]: must be of type object"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::emulators
