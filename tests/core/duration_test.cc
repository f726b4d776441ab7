#include "core/duration.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace nodewright::core {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr int64_t kMaxNanos = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinNanos = std::numeric_limits<int64_t>::min();

struct ParseCase {
  std::string name;
  std::string input;
  nanoseconds expected;
};

void PrintTo(const ParseCase& c, std::ostream* os) {
  *os << c.name;
}

class DurationParseTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(DurationParseTest, ParsesLikeGo) {
  auto d = Duration::parse(GetParam().input);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_FALSE(d->isNever());
  EXPECT_EQ(d->value(), GetParam().expected);
}

// Mostly Go's parseDurationTests (time/time_test.go).
INSTANTIATE_TEST_SUITE_P(
    Inputs, DurationParseTest,
    ::testing::Values(
        ParseCase{"Zero", "0", nanoseconds(0)}, ParseCase{"NegativeZero", "-0", nanoseconds(0)},
        ParseCase{"PlusZero", "+0", nanoseconds(0)}, ParseCase{"ZeroSeconds", "0s", seconds(0)},
        ParseCase{"Seconds", "5s", seconds(5)}, ParseCase{"ThirtySeconds", "30s", seconds(30)},
        ParseCase{"ManySeconds", "1478s", seconds(1478)},
        ParseCase{"FifteenSeconds", "15s", seconds(15)}, ParseCase{"Negative", "-5s", seconds(-5)},
        ParseCase{"Plus", "+5s", seconds(5)}, ParseCase{"NegativeZeroSeconds", "-0s", seconds(0)},
        ParseCase{"DecimalZero", "5.0s", seconds(5)},
        ParseCase{"Decimal", "5.6s", milliseconds(5600)},
        ParseCase{"TrailingPoint", "5.s", seconds(5)},
        ParseCase{"LeadingPoint", ".5s", milliseconds(500)},
        ParseCase{"TrailingZeros", "1.00s", seconds(1)},
        ParseCase{"Millis", "1.004s", milliseconds(1004)},
        ParseCase{"MillisTrailingZero", "1.0040s", milliseconds(1004)},
        ParseCase{"LongFraction", "100.00100s", milliseconds(100001)},
        ParseCase{"Nanoseconds", "10ns", nanoseconds(10)},
        ParseCase{"Microseconds", "11us", microseconds(11)},
        ParseCase{"MicroSign", "12\u00b5s", microseconds(12)},
        ParseCase{"GreekMu", "12\u03bcs", microseconds(12)},
        ParseCase{"Milliseconds", "300ms", milliseconds(300)},
        ParseCase{"Minutes", "15m", minutes(15)}, ParseCase{"Hours", "16h", hours(16)},
        ParseCase{"HoursAndMinutes", "1h30m", minutes(90)},
        ParseCase{"HoursMinutesAgain", "2h45m", minutes(165)},
        ParseCase{"NegativeHours", "-1.5h", minutes(-90)},
        ParseCase{"OutOfOrder", "10.5s4m", minutes(4) + milliseconds(10500)},
        ParseCase{"NegativeCompound", "-2m3.4s", -(minutes(2) + milliseconds(3400))},
        ParseCase{"AllUnits", "1h2m3s4ms5us6ns",
                  hours(1) + minutes(2) + seconds(3) + milliseconds(4) + microseconds(5) +
                      nanoseconds(6)},
        ParseCase{"Mixed", "39h9m14.425s",
                  hours(39) + minutes(9) + seconds(14) + milliseconds(425)},
        ParseCase{"LargeNanos", "52763797000ns", nanoseconds(52763797000)},
        ParseCase{"FloatFraction", "0.3333333333333333333h", minutes(20)},
        ParseCase{"BeyondFloatPrecision", "9007199254740993ns", nanoseconds(9007199254740993)},
        ParseCase{"MaxNanos", "9223372036854775807ns", nanoseconds(kMaxNanos)},
        ParseCase{"MaxMicros", "9223372036854775.807us", nanoseconds(kMaxNanos)},
        ParseCase{"MaxCompound", "9223372036s854ms775us807ns", nanoseconds(kMaxNanos)},
        ParseCase{"MinNanos", "-9223372036854775808ns", nanoseconds(kMinNanos)},
        ParseCase{"MinMicros", "-9223372036854775.808us", nanoseconds(kMinNanos)},
        ParseCase{"MinCompound", "-9223372036s854ms775us808ns", nanoseconds(kMinNanos)},
        ParseCase{"MinHours", "-2562047h47m16.854775808s", nanoseconds(kMinNanos)},
        ParseCase{"LongZeroFraction", "0.100000000000000000000h", minutes(6)},
        ParseCase{"LongFractionHours", "0.830103483285477580700h",
                  minutes(49) + seconds(48) + nanoseconds(372539827)}),
    [](const auto& info) { return info.param.name; });

struct InvalidCase {
  std::string name;
  std::string input;
  std::string message;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class DurationInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(DurationInvalidTest, RejectsWithGoMessage) {
  auto d = Duration::parse(GetParam().input);
  ASSERT_FALSE(d) << "parsed as " << d->toString();
  EXPECT_TRUE(d.error().is(Code::Invalid));
  EXPECT_EQ(d.error().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, DurationInvalidTest,
    ::testing::Values(
        InvalidCase{"Empty", "", R"(time: invalid duration "")"},
        InvalidCase{"Letters", "abc", R"(time: invalid duration "abc")"},
        InvalidCase{"MissingUnit", "15", R"(time: missing unit in duration "15")"},
        InvalidCase{"MissingLastUnit", "1h30", R"(time: missing unit in duration "1h30")"},
        InvalidCase{"UnknownUnit", "15x", R"(time: unknown unit "x" in duration "15x")"},
        InvalidCase{"Days", "1d", R"(time: unknown unit "d" in duration "1d")"},
        InvalidCase{"UpperCaseUnit", "1H", R"(time: unknown unit "H" in duration "1H")"},
        InvalidCase{"SpaceInUnit", "1 s", R"(time: unknown unit " s" in duration "1 s")"},
        InvalidCase{"SignOnly", "-", R"(time: invalid duration "-")"},
        InvalidCase{"UnitOnly", "s", R"(time: invalid duration "s")"},
        InvalidCase{"PointOnly", ".", R"(time: invalid duration ".")"},
        InvalidCase{"SignAndPoint", "-.", R"(time: invalid duration "-.")"},
        InvalidCase{"PointAndUnit", ".s", R"(time: invalid duration ".s")"},
        InvalidCase{"SignPointAndUnit", "+.s", R"(time: invalid duration "+.s")"},
        InvalidCase{"LeadingSpace", " 1s", R"(time: invalid duration " 1s")"},
        InvalidCase{"LowerCaseNever", "never", R"(time: invalid duration "never")"},
        InvalidCase{"NeverWithSpace", "Never ", R"(time: invalid duration "Never ")"},
        InvalidCase{"NonUtf8", "\x85\x85", R"(time: invalid duration "\x85\x85")"},
        InvalidCase{"NonUtf8Unit", "3\xff\xff",
                    R"(time: unknown unit "\xff\xff" in duration "3\xff\xff")"},
        InvalidCase{"ReplacementRune", "\uFFFD", R"(time: invalid duration "\xef\xbf\xbd")"},
        InvalidCase{"QuoteEscaped", "1\"", R"(time: unknown unit "\"" in duration "1\"")"},
        InvalidCase{"TooManyNanos", "9223372036854775808ns",
                    R"(time: invalid duration "9223372036854775808ns")"},
        InvalidCase{"TooManyMicros", "9223372036854775.808us",
                    R"(time: invalid duration "9223372036854775.808us")"},
        InvalidCase{"TooMuchCompound", "9223372036854ms775us808ns",
                    R"(time: invalid duration "9223372036854ms775us808ns")"},
        InvalidCase{"BelowMin", "-9223372036854775809ns",
                    R"(time: invalid duration "-9223372036854775809ns")"},
        InvalidCase{"HugeInteger", "99999999999999999999h",
                    R"(time: invalid duration "99999999999999999999h")"}),
    [](const auto& info) { return info.param.name; });

struct StringCase {
  std::string name;
  nanoseconds value;
  std::string expected;
};

void PrintTo(const StringCase& c, std::ostream* os) {
  *os << c.name;
}

class DurationStringTest : public ::testing::TestWithParam<StringCase> {};

TEST_P(DurationStringTest, FormatsLikeGo) {
  EXPECT_EQ(Duration(GetParam().value).toString(), GetParam().expected);
}

TEST_P(DurationStringTest, FormattedTextParsesBack) {
  auto d = Duration::parse(GetParam().expected);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->value(), GetParam().value);
}

// Mostly Go's durationTests (time/time_test.go).
INSTANTIATE_TEST_SUITE_P(
    Values, DurationStringTest,
    ::testing::Values(StringCase{"Zero", nanoseconds(0), "0s"},
                      StringCase{"Nano", nanoseconds(1), "1ns"},
                      StringCase{"Micro", microseconds(1), "1\u00b5s"},
                      StringCase{"FractionalMicro", nanoseconds(1100), "1.1\u00b5s"},
                      StringCase{"FractionalMilli", microseconds(2200), "2.2ms"},
                      StringCase{"Millis", milliseconds(300), "300ms"},
                      StringCase{"FractionalSecond", milliseconds(3300), "3.3s"},
                      StringCase{"OneAndAHalfSeconds", milliseconds(1500), "1.5s"},
                      StringCase{"Seconds", seconds(15), "15s"},
                      StringCase{"MinutesSeconds", minutes(4) + seconds(5), "4m5s"},
                      StringCase{"MinutesFraction", minutes(4) + milliseconds(5001), "4m5.001s"},
                      StringCase{"Hours", hours(5) + minutes(6) + milliseconds(7001), "5h6m7.001s"},
                      StringCase{"HourAndHalf", minutes(90), "1h30m0s"},
                      StringCase{"Month", hours(720), "720h0m0s"},
                      StringCase{"OneNanoOverMinutes", minutes(8) + nanoseconds(1),
                                 "8m0.000000001s"},
                      StringCase{"Negative", -minutes(90), "-1h30m0s"},
                      StringCase{"NegativeMillis", milliseconds(-300), "-300ms"},
                      StringCase{"Max", nanoseconds(kMaxNanos), "2562047h47m16.854775807s"},
                      StringCase{"Min", nanoseconds(kMinNanos), "-2562047h47m16.854775808s"}),
    [](const auto& info) { return info.param.name; });

TEST(DurationTest, ParsesNeverLiteral) {
  auto d = Duration::parse("Never");
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_TRUE(d->isNever());
  EXPECT_EQ(d->value(), nanoseconds(0));
  EXPECT_EQ(*d, Duration::never());
  EXPECT_EQ(d->toString(), "Never");
}

TEST(DurationTest, NeverDiffersFromZero) {
  EXPECT_NE(Duration::never(), Duration());
  EXPECT_NE(Duration::never(), Duration(nanoseconds(0)));
  EXPECT_EQ(Duration().toString(), "0s");
}

TEST(DurationTest, EqualityComparesValue) {
  EXPECT_EQ(*Duration::parse("90m"), *Duration::parse("1h30m"));
  EXPECT_NE(*Duration::parse("90m"), *Duration::parse("1h"));
}

}  // namespace
}  // namespace nodewright::core
