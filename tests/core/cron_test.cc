#include "core/cron.h"

#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>

namespace nodewright::core {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::minutes;

TimePoint at(const std::string& rfc3339) {
  auto parsed = Time::parse(rfc3339);
  EXPECT_TRUE(parsed) << rfc3339;
  return parsed ? parsed->point() : TimePoint{};
}

// next() as RFC 3339, "none" when there is no hit, or the parse error.
std::string nextAfter(const std::string& spec, const std::string& after) {
  auto schedule = CronSchedule::parse(spec);
  if (!schedule) {
    return "error: " + schedule.error().message();
  }
  auto hit = schedule->next(at(after));
  return hit ? Time(*hit).toString() : "none";
}

struct ErrorCase {
  std::string name;
  std::string spec;
  std::string message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class CronScheduleParseErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CronScheduleParseErrorTest, NamesTheBadField) {
  auto schedule = CronSchedule::parse(GetParam().spec);
  ASSERT_FALSE(schedule) << GetParam().spec;
  EXPECT_EQ(schedule.error().code(), Code::Invalid);
  EXPECT_EQ(schedule.error().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Specs, CronScheduleParseErrorTest,
    ::testing::Values(
        ErrorCase{"DayOfWeekEight", "0 9 * * 8", "day-of-week: 8 is out of range 0-7"},
        ErrorCase{"MinuteSixty", "60 * * * *", "minute: 60 is out of range 0-59"},
        ErrorCase{"HourTwentyFour", "0 24 * * *", "hour: 24 is out of range 0-23"},
        ErrorCase{"DayOfMonthZero", "0 0 0 * *", "day-of-month: 0 is out of range 1-31"},
        ErrorCase{"RangeEndOutOfRange", "0 0 1-32 * *", "day-of-month: 32 is out of range 1-31"},
        ErrorCase{"MonthThirteen", "0 0 1 13 *", "month: 13 is out of range 1-12"},
        ErrorCase{"UnknownMonthName", "0 0 1 FOO *",
                  "month: \"FOO\" is not a number or month name (JAN-DEC)"},
        ErrorCase{"LongDayName", "0 0 * * MONDAY",
                  "day-of-week: \"MONDAY\" is not a number or day name (SUN-SAT)"},
        ErrorCase{"NameInNumericField", "jan * * * *", "minute: \"jan\" is not a number"},
        ErrorCase{"ZeroStep", "*/0 * * * *", "minute: step must be positive in \"*/0\""},
        ErrorCase{"BadStep", "0 0 * * */x", "day-of-week: step \"x\" is not a number"},
        ErrorCase{"BackwardRange", "5-3 * * * *", "minute: range 5-3 ends before it starts"},
        ErrorCase{"BackwardNamedRange", "0 0 * * SAT-SUN",
                  "day-of-week: range 6-0 ends before it starts"},
        ErrorCase{"EmptyListElement", "1,,2 * * * *", "minute: empty list element"},
        ErrorCase{"TwoSlashes", "1/2/3 * * * *", "minute: \"1/2/3\" has more than one '/'"},
        ErrorCase{"TwoHyphens", "0 1-2-3 * * *", "hour: \"1-2-3\" has more than one '-'"},
        ErrorCase{"Negative", "-1 * * * *", "minute: \"-1\": negative numbers are not allowed"},
        ErrorCase{"FourFields", "0 9 * *",
                  "expected 5 fields (minute hour day-of-month month day-of-week), found 4"},
        ErrorCase{"SecondsField", "0 0 9 * * *",
                  "expected 5 fields (minute hour day-of-month month day-of-week), found 6"},
        ErrorCase{"Empty", "  ", "empty schedule"},
        ErrorCase{"Every", "@every 5m",
                  "unknown macro \"@every 5m\": want one of @yearly, @annually, @monthly, "
                  "@weekly, @daily, @midnight, @hourly"},
        ErrorCase{"Reboot", "@reboot",
                  "unknown macro \"@reboot\": want one of @yearly, @annually, @monthly, "
                  "@weekly, @daily, @midnight, @hourly"},
        ErrorCase{"TimeZone", "TZ=Europe/Paris 0 9 * * *",
                  "time zones (TZ=Europe/Paris) are not supported: schedules are evaluated "
                  "in UTC"}),
    [](const auto& info) { return info.param.name; });

struct NextCase {
  std::string name;
  std::string spec;
  std::string after;
  std::string expected;
};

void PrintTo(const NextCase& c, std::ostream* os) {
  *os << c.name;
}

class CronScheduleNextTest : public ::testing::TestWithParam<NextCase> {};

TEST_P(CronScheduleNextTest, FindsFirstHitStrictlyAfter) {
  EXPECT_EQ(nextAfter(GetParam().spec, GetParam().after), GetParam().expected);
}

// 2024-09-01 is a Sunday; 2024 is a leap year.
INSTANTIATE_TEST_SUITE_P(
    Specs, CronScheduleNextTest,
    ::testing::Values(
        NextCase{"StepWithinHour", "*/15 * * * *", "2024-01-01T10:07:30Z", "2024-01-01T10:15:00Z"},
        NextCase{"StrictlyAfterAHit", "*/15 * * * *", "2024-01-01T10:15:00Z",
                 "2024-01-01T10:30:00Z"},
        NextCase{"SubSecondBeforeHour", "*/15 * * * *", "2024-01-01T10:59:59.999999Z",
                 "2024-01-01T11:00:00Z"},
        NextCase{"StepOverRange", "1-10/3 * * * *", "2024-01-01T10:01:00Z", "2024-01-01T10:04:00Z"},
        NextCase{"StepOverRangeWraps", "1-10/3 * * * *", "2024-01-01T10:10:00Z",
                 "2024-01-01T11:01:00Z"},
        NextCase{"StartSlashStep", "5/20 * * * *", "2024-01-01T10:45:00Z", "2024-01-01T11:05:00Z"},
        NextCase{"HourStep", "0 */6 * * *", "2024-01-01T07:00:00Z", "2024-01-01T12:00:00Z"},
        NextCase{"List", "0 8,12,17 * * *", "2024-01-01T12:00:00Z", "2024-01-01T17:00:00Z"},
        NextCase{"AcrossDay", "30 23 * * *", "2024-01-01T23:30:00Z", "2024-01-02T23:30:00Z"},
        NextCase{"AcrossYear", "30 23 31 12 *", "2024-12-31T23:30:00Z", "2025-12-31T23:30:00Z"},
        NextCase{"NewYear", "0 0 1 1 *", "2024-06-15T08:00:00Z", "2025-01-01T00:00:00Z"},
        NextCase{"SkipsFebruaryFor31st", "0 0 31 * *", "2024-01-31T00:00:00Z",
                 "2024-03-31T00:00:00Z"},
        NextCase{"SkipsAprilFor31st", "0 0 31 * *", "2024-03-31T00:00:00Z", "2024-05-31T00:00:00Z"},
        NextCase{"LeapDayFromLeapDay", "0 0 29 2 *", "2024-02-29T00:00:00Z",
                 "2028-02-29T00:00:00Z"},
        NextCase{"LeapDayFromMarch", "0 0 29 2 *", "2025-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},
        NextCase{"LeapDaySkips2100", "0 0 29 2 *", "2099-01-01T00:00:00Z", "2104-02-29T00:00:00Z"},
        NextCase{"HorizonIsFiveYears", "0 0 29 2 *", "2098-03-01T00:00:00Z", "none"},
        NextCase{"FebruaryThirtieth", "0 0 30 2 *", "2024-01-01T00:00:00Z", "none"},
        NextCase{"AprilThirtyFirst", "0 0 31 4 *", "2024-01-01T00:00:00Z", "none"},
        NextCase{"EitherDayFieldDayOfMonth", "0 0 1 * MON", "2024-08-31T12:00:00Z",
                 "2024-09-01T00:00:00Z"},
        NextCase{"EitherDayFieldDayOfWeek", "0 0 1 * MON", "2024-09-01T00:00:00Z",
                 "2024-09-02T00:00:00Z"},
        NextCase{"RestrictedRangeStillOr", "0 0 1-31 * MON", "2024-09-03T00:00:00Z",
                 "2024-09-04T00:00:00Z"},
        NextCase{"StarDayOfMonthMeansWeekdayOnly", "0 0 * * MON", "2024-09-03T00:00:00Z",
                 "2024-09-09T00:00:00Z"},
        NextCase{"StarDayOfWeekMeansDateOnly", "0 0 13 * *", "2024-09-01T00:00:00Z",
                 "2024-09-13T00:00:00Z"},
        NextCase{"SevenIsSunday", "0 0 * * 7", "2024-09-02T00:00:00Z", "2024-09-08T00:00:00Z"},
        NextCase{"RangeToSeven", "0 0 * * 5-7", "2024-09-07T00:00:00Z", "2024-09-08T00:00:00Z"},
        NextCase{"OpenDayOfWeekStepStopsAtSaturday", "0 0 * * 1/2", "2024-09-06T00:00:00Z",
                 "2024-09-09T00:00:00Z"},
        NextCase{"BusinessDaysOverWeekend", "0 9 * * 1-5", "2024-09-06T09:00:00Z",
                 "2024-09-09T09:00:00Z"},
        NextCase{"NamesAnyCase", "0 9 * jan,Jul mon-FRI", "2024-02-01T00:00:00Z",
                 "2024-07-01T09:00:00Z"},
        NextCase{"QuestionMark", "0 0 ? * SUN", "2024-09-02T00:00:00Z", "2024-09-08T00:00:00Z"},
        NextCase{"Yearly", "@yearly", "2024-03-01T00:00:00Z", "2025-01-01T00:00:00Z"},
        NextCase{"Annually", "@annually", "2024-03-01T00:00:00Z", "2025-01-01T00:00:00Z"},
        NextCase{"Monthly", "@monthly", "2024-01-31T12:00:00Z", "2024-02-01T00:00:00Z"},
        NextCase{"Weekly", "@weekly", "2024-09-03T00:00:00Z", "2024-09-08T00:00:00Z"},
        NextCase{"Daily", "@daily", "2024-09-03T00:00:00Z", "2024-09-04T00:00:00Z"},
        NextCase{"Midnight", "@midnight", "2024-09-03T13:00:00Z", "2024-09-04T00:00:00Z"},
        NextCase{"Hourly", "@hourly", "2024-09-03T10:00:00Z", "2024-09-03T11:00:00Z"},
        NextCase{"SurroundingSpace", "  0 9  * * 1-5 ", "2024-09-07T00:00:00Z",
                 "2024-09-09T09:00:00Z"}),
    [](const auto& info) { return info.param.name; });

TEST(CronScheduleTest, MatchesTheMinuteOfAHit) {
  auto schedule = CronSchedule::parse("0 9 * * 1-5");
  ASSERT_TRUE(schedule) << schedule.error().message();
  EXPECT_TRUE(schedule->matches(at("2024-09-06T09:00:59Z")));
  EXPECT_FALSE(schedule->matches(at("2024-09-06T09:01:00Z")));
  EXPECT_FALSE(schedule->matches(at("2024-09-07T09:00:00Z")));  // Saturday
  EXPECT_EQ(schedule->spec(), "0 9 * * 1-5");
}

TEST(CronScheduleTest, NextAgreesWithMatchesMinuteByMinute) {
  // A brute-force cross-check over two months with month, day and OR-rule edges.
  auto schedule = CronSchedule::parse("*/20 1-3,22 1,15,31 JAN-MAR,DEC TUE");
  ASSERT_TRUE(schedule) << schedule.error().message();
  TimePoint t = at("2024-12-20T00:00:00Z");
  TimePoint end = at("2025-02-20T00:00:00Z");
  auto hit = schedule->next(t);
  int hits = 0;
  for (TimePoint m = t + minutes(1); m < end; m += minutes(1)) {
    if (schedule->matches(m)) {
      ASSERT_TRUE(hit.has_value());
      ASSERT_EQ(Time(*hit).toString(), Time(m).toString());
      hit = schedule->next(m);
      ++hits;
    }
  }
  // Tuesdays Dec 24, 31, Jan 7, 14, 21, 28, Feb 4, 11, 18, plus Jan 1, 15, 31 and Feb 1, 15
  // (Dec 31 is both): 14 days of 4 hours of 3 hits.
  EXPECT_EQ(hits, 14 * 4 * 3);
}

TEST(CronWindowTest, OpenFromTheHitMinuteForTheDuration) {
  auto schedule = CronSchedule::parse("0 9 * * *");
  ASSERT_TRUE(schedule) << schedule.error().message();
  const microseconds eightHours = hours(8);
  EXPECT_FALSE(windowOpen(*schedule, eightHours, at("2024-09-03T08:59:59.999999Z")));
  EXPECT_TRUE(windowOpen(*schedule, eightHours, at("2024-09-03T09:00:00Z")));
  EXPECT_TRUE(windowOpen(*schedule, eightHours, at("2024-09-03T16:59:59.999999Z")));
  EXPECT_FALSE(windowOpen(*schedule, eightHours, at("2024-09-03T17:00:00Z")));
  EXPECT_FALSE(windowOpen(*schedule, microseconds(0), at("2024-09-03T09:00:00Z")));
}

TEST(CronWindowTest, WindowSpansMidnightAndOverlappingHits) {
  auto nightly = CronSchedule::parse("0 22 * * *");
  ASSERT_TRUE(nightly) << nightly.error().message();
  EXPECT_TRUE(windowOpen(*nightly, hours(4), at("2024-09-04T01:59:00Z")));
  EXPECT_FALSE(windowOpen(*nightly, hours(4), at("2024-09-04T02:00:00Z")));
  auto hourly = CronSchedule::parse("@hourly");
  ASSERT_TRUE(hourly) << hourly.error().message();
  EXPECT_TRUE(windowOpen(*hourly, hours(2), at("2024-09-04T10:30:00Z")));
  EXPECT_FALSE(windowOpen(*hourly, minutes(30), at("2024-09-04T10:30:00Z")));
}

}  // namespace
}  // namespace nodewright::core
