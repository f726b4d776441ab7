#include "apiserver/table/human_duration.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace nodewright::apiserver {
namespace {

using namespace std::chrono_literals;
using api::Json;

struct DurationCase {
  std::chrono::microseconds elapsed;
  const char* expected;
};

class HumanDurationTest : public testing::TestWithParam<DurationCase> {};

TEST_P(HumanDurationTest, MatchesApimachinery) {
  EXPECT_EQ(humanDuration(GetParam().elapsed), GetParam().expected);
}

constexpr auto kDay = 24h;
constexpr auto kYear = 365 * kDay;

INSTANTIATE_TEST_SUITE_P(
    Durations, HumanDurationTest,
    testing::Values(DurationCase{-3s, "<invalid>"}, DurationCase{-2s, "<invalid>"},
                    DurationCase{-1900ms, "0s"}, DurationCase{-1s, "0s"}, DurationCase{0s, "0s"},
                    DurationCase{999ms, "0s"}, DurationCase{5s, "5s"}, DurationCase{119s, "119s"},
                    DurationCase{2min, "2m"}, DurationCase{3min + 2s, "3m2s"},
                    DurationCase{9min + 59s, "9m59s"}, DurationCase{10min + 30s, "10m"},
                    DurationCase{179min, "179m"}, DurationCase{3h, "3h"},
                    DurationCase{5h + 3min, "5h3m"}, DurationCase{7h + 59min, "7h59m"},
                    DurationCase{8h + 30min, "8h"}, DurationCase{47h, "47h"},
                    DurationCase{48h, "2d"}, DurationCase{2 * kDay + 5h, "2d5h"},
                    DurationCase{7 * kDay + 23h, "7d23h"}, DurationCase{8 * kDay + 5h, "8d"},
                    DurationCase{729 * kDay, "729d"}, DurationCase{2 * kYear, "2y"},
                    DurationCase{2 * kYear + 3 * kDay, "2y3d"},
                    DurationCase{7 * kYear + 364 * kDay, "7y364d"},
                    DurationCase{8 * kYear + 100 * kDay, "8y"}));

const core::TimePoint kNow = core::Time::parse("2024-05-01T12:00:00Z")->point();

TEST(AgeSinceTest, ReadsRfc3339Timestamps) {
  const Json created = "2024-05-01T11:55:00Z";
  EXPECT_EQ(ageSince(&created, kNow), "5m");
  const Json withOffset = "2024-05-01T13:00:00+02:00";
  EXPECT_EQ(ageSince(&withOffset, kNow), "60m");
  const Json micro = "2024-05-01T11:59:58.500000Z";
  EXPECT_EQ(ageSince(&micro, kNow), "1s");
}

TEST(AgeSinceTest, IsUnknownWithoutATimestamp) {
  EXPECT_EQ(ageSince(nullptr, kNow), "<unknown>");
  const Json null;
  EXPECT_EQ(ageSince(&null, kNow), "<unknown>");
  const Json empty = "";
  EXPECT_EQ(ageSince(&empty, kNow), "<unknown>");
  const Json goZero = "0001-01-01T00:00:00Z";
  EXPECT_EQ(ageSince(&goZero, kNow), "<unknown>");
  const Json garbage = "yesterday";
  EXPECT_EQ(ageSince(&garbage, kNow), "<unknown>");
  const Json number = 12;
  EXPECT_EQ(ageSince(&number, kNow), "<unknown>");
}

TEST(AgeSinceTest, FutureTimestampsAreInvalid) {
  const Json future = "2024-05-01T12:01:00Z";
  EXPECT_EQ(ageSince(&future, kNow), "<invalid>");
}

}  // namespace
}  // namespace nodewright::apiserver
