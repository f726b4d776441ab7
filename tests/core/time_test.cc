#include "core/time.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace nodewright::core {
namespace {

using std::chrono::microseconds;
using std::chrono::seconds;

TimePoint at(int64_t unixSeconds, int64_t micros = 0) {
  return TimePoint(seconds(unixSeconds)) + microseconds(micros);
}

struct ParseCase {
  std::string name;
  std::string input;
  TimePoint expected;
  std::string formatted;
};

void PrintTo(const ParseCase& c, std::ostream* os) {
  *os << c.name;
}

class TimeParseTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(TimeParseTest, ParsesToUtcInstant) {
  auto t = Time::parse(GetParam().input);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->point(), GetParam().expected);
}

TEST_P(TimeParseTest, FormatsInUtc) {
  auto t = Time::parse(GetParam().input);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->toString(), GetParam().formatted);
}

TEST_P(TimeParseTest, FormattedTextRoundTrips) {
  auto t = Time::parse(GetParam().formatted);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->point(), GetParam().expected);
  EXPECT_EQ(t->toString(), GetParam().formatted);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, TimeParseTest,
    ::testing::Values(
        ParseCase{"Utc", "2024-01-02T03:04:05Z", at(1704164645), "2024-01-02T03:04:05Z"},
        ParseCase{"Micros", "2024-01-02T03:04:05.123456Z", at(1704164645, 123456),
                  "2024-01-02T03:04:05.123456Z"},
        ParseCase{"Millis", "2024-01-02T03:04:05.123Z", at(1704164645, 123000),
                  "2024-01-02T03:04:05.123000Z"},
        ParseCase{"NanosTruncated", "2024-01-02T03:04:05.123456789Z", at(1704164645, 123456),
                  "2024-01-02T03:04:05.123456Z"},
        ParseCase{"LongFractionTruncated", "2024-01-02T03:04:05.9999999999999Z",
                  at(1704164645, 999999), "2024-01-02T03:04:05.999999Z"},
        ParseCase{"ZeroFractionDropped", "2024-01-02T03:04:05.000Z", at(1704164645),
                  "2024-01-02T03:04:05Z"},
        ParseCase{"SubMicroFractionDropped", "2024-01-02T03:04:05.0000009Z", at(1704164645),
                  "2024-01-02T03:04:05Z"},
        ParseCase{"CommaFraction", "2024-01-02T03:04:05,5Z", at(1704164645, 500000),
                  "2024-01-02T03:04:05.500000Z"},
        ParseCase{"PositiveOffset", "2024-01-02T05:04:05+02:00", at(1704164645),
                  "2024-01-02T03:04:05Z"},
        ParseCase{"NegativeOffset", "2024-01-01T23:30:00-01:00", at(1704155400),
                  "2024-01-02T00:30:00Z"},
        ParseCase{"ZeroOffset", "2024-01-02T03:04:05+00:00", at(1704164645),
                  "2024-01-02T03:04:05Z"},
        ParseCase{"NegativeZeroOffset", "2024-01-02T03:04:05-00:00", at(1704164645),
                  "2024-01-02T03:04:05Z"},
        ParseCase{"HalfHourOffsetWithFraction", "2024-01-02T08:34:05.25+05:30",
                  at(1704164645, 250000), "2024-01-02T03:04:05.250000Z"},
        ParseCase{"OffsetBackIntoLeapDay", "2024-03-01T01:00:00+02:00", at(1709247600),
                  "2024-02-29T23:00:00Z"},
        ParseCase{"OffsetIntoNewYear", "2023-12-31T23:00:00-02:00", at(1704070800),
                  "2024-01-01T01:00:00Z"},
        ParseCase{"Epoch", "1970-01-01T00:00:00Z", at(0), "1970-01-01T00:00:00Z"},
        ParseCase{"BeforeEpoch", "1969-12-31T23:59:59.5Z", at(-1, 500000),
                  "1969-12-31T23:59:59.500000Z"},
        ParseCase{"LeapDay400", "2000-02-29T12:00:00Z", at(951825600), "2000-02-29T12:00:00Z"},
        ParseCase{"GoZeroTime", "0001-01-01T00:00:00Z", at(-62135596800), "0001-01-01T00:00:00Z"},
        ParseCase{"YearZero", "0000-03-01T00:00:00Z", at(-62162035200), "0000-03-01T00:00:00Z"},
        ParseCase{"LastInstant", "9999-12-31T23:59:59.999999Z", at(253402300799, 999999),
                  "9999-12-31T23:59:59.999999Z"}),
    [](const auto& info) { return info.param.name; });

struct InvalidCase {
  std::string name;
  std::string input;
  std::string message;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class TimeInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(TimeInvalidTest, RejectsWithReason) {
  auto t = Time::parse(GetParam().input);
  ASSERT_FALSE(t) << "parsed as " << t->toString();
  EXPECT_TRUE(t.error().is(Code::Invalid));
  EXPECT_EQ(t.error().message(), GetParam().message);
}

std::string notRfc3339(const std::string& input) {
  return "parsing time \"" + input + "\": not RFC 3339 (like \"2006-01-02T15:04:05Z07:00\")";
}

std::string outOfRange(const std::string& input, const std::string& field) {
  return "parsing time \"" + input + "\": " + field + " out of range";
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, TimeInvalidTest,
    ::testing::Values(
        InvalidCase{"Empty", "", notRfc3339("")},
        InvalidCase{"DateOnly", "2024-01-02", notRfc3339("2024-01-02")},
        InvalidCase{"NoZone", "2024-01-02T03:04:05", notRfc3339("2024-01-02T03:04:05")},
        InvalidCase{"SpaceSeparator", "2024-01-02 03:04:05Z", notRfc3339("2024-01-02 03:04:05Z")},
        InvalidCase{"LowerCaseT", "2024-01-02t03:04:05Z", notRfc3339("2024-01-02t03:04:05Z")},
        InvalidCase{"LowerCaseZ", "2024-01-02T03:04:05z", notRfc3339("2024-01-02T03:04:05z")},
        InvalidCase{"ShortMonth", "2024-1-02T03:04:05Z", notRfc3339("2024-1-02T03:04:05Z")},
        InvalidCase{"SignedYear", "+024-01-02T03:04:05Z", notRfc3339("+024-01-02T03:04:05Z")},
        InvalidCase{"OffsetWithoutColon", "2024-01-02T03:04:05+0200",
                    notRfc3339("2024-01-02T03:04:05+0200")},
        InvalidCase{"ShortOffset", "2024-01-02T03:04:05+02", notRfc3339("2024-01-02T03:04:05+02")},
        InvalidCase{"EmptyFraction", "2024-01-02T03:04:05.Z", notRfc3339("2024-01-02T03:04:05.Z")},
        InvalidCase{"TrailingSpace", "2024-01-02T03:04:05Z ", notRfc3339("2024-01-02T03:04:05Z ")},
        InvalidCase{"TrailingText", "2024-01-02T03:04:05Zulu",
                    notRfc3339("2024-01-02T03:04:05Zulu")},
        InvalidCase{"Month13", "2024-13-01T00:00:00Z", outOfRange("2024-13-01T00:00:00Z", "month")},
        InvalidCase{"Month0", "2024-00-10T00:00:00Z", outOfRange("2024-00-10T00:00:00Z", "month")},
        InvalidCase{"Feb30", "2024-02-30T00:00:00Z", outOfRange("2024-02-30T00:00:00Z", "day")},
        InvalidCase{"Feb29NonLeap", "2023-02-29T00:00:00Z",
                    outOfRange("2023-02-29T00:00:00Z", "day")},
        InvalidCase{"Feb29Century", "1900-02-29T00:00:00Z",
                    outOfRange("1900-02-29T00:00:00Z", "day")},
        InvalidCase{"April31", "2024-04-31T00:00:00Z", outOfRange("2024-04-31T00:00:00Z", "day")},
        InvalidCase{"Day0", "2024-04-00T00:00:00Z", outOfRange("2024-04-00T00:00:00Z", "day")},
        InvalidCase{"Hour24", "2024-01-02T24:00:00Z", outOfRange("2024-01-02T24:00:00Z", "hour")},
        InvalidCase{"Minute60", "2024-01-02T23:60:00Z",
                    outOfRange("2024-01-02T23:60:00Z", "minute")},
        InvalidCase{"LeapSecond", "2016-12-31T23:59:60Z",
                    outOfRange("2016-12-31T23:59:60Z", "second")},
        InvalidCase{"OffsetHour24", "2024-01-02T03:04:05+24:00",
                    outOfRange("2024-01-02T03:04:05+24:00", "time zone offset")},
        InvalidCase{"OffsetMinute60", "2024-01-02T03:04:05+02:60",
                    outOfRange("2024-01-02T03:04:05+02:60", "time zone offset")}),
    [](const auto& info) { return info.param.name; });

TEST(TimeTest, DefaultIsEpochAndZero) {
  Time t;
  EXPECT_TRUE(t.isZero());
  EXPECT_EQ(t.toString(), "1970-01-01T00:00:00Z");
  EXPECT_FALSE(Time(at(1)).isZero());
}

TEST(TimeTest, FormatsSubSecondOnlyWhenPresent) {
  EXPECT_EQ(Time(at(1704164645)).toString(), "2024-01-02T03:04:05Z");
  EXPECT_EQ(Time(at(1704164645, 1)).toString(), "2024-01-02T03:04:05.000001Z");
  EXPECT_EQ(Time(at(-1, 999999)).toString(), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(Time(at(0, -1)).toString(), "1969-12-31T23:59:59.999999Z");
}

TEST(TimeTest, OrdersByInstant) {
  const Time earlier = *Time::parse("2024-01-02T03:04:05Z");
  const Time sameInstant = *Time::parse("2024-01-02T05:04:05+02:00");
  const Time later = *Time::parse("2024-01-02T03:04:05.000001Z");
  EXPECT_EQ(earlier, sameInstant);
  EXPECT_LT(earlier, later);
  EXPECT_GT(later, sameInstant);
}

}  // namespace
}  // namespace nodewright::core
