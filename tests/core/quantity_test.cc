#include "core/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace nodewright::core {
namespace {

using Format = Quantity::Format;

constexpr std::string_view kFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";

Quantity mustParse(std::string_view text) {
  auto q = Quantity::parse(text);
  EXPECT_TRUE(q) << text << ": " << q.error().message();
  return q ? *q : Quantity();
}

// Parsed text and the canonical text apimachinery's Quantity.String() gives for it. Expected
// values come from apimachinery's quantity_test.go (TestQuantityParse, TestQuantityString,
// TestQuantityParseEmit) or follow from CanonicalizeBytes.
struct CanonicalCase {
  std::string name;
  std::string input;
  std::string canonical;
  Format format;  // the format parse() records
};

void PrintTo(const CanonicalCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantityCanonicalTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(QuantityCanonicalTest, FormatsLikeApimachinery) {
  auto q = Quantity::parse(GetParam().input);
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->toString(), GetParam().canonical);
  EXPECT_EQ(q->format(), GetParam().format);
}

TEST_P(QuantityCanonicalTest, CanonicalTextRoundTrips) {
  auto q = Quantity::parse(GetParam().input);
  ASSERT_TRUE(q) << q.error().message();
  auto again = Quantity::parse(q->toString());
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(*again, *q);
  EXPECT_EQ(again->toString(), GetParam().canonical);
}

TEST_P(QuantityCanonicalTest, NegatedValueFormatsWithMinusSign) {
  auto q = Quantity::parse("-" + GetParam().input);
  ASSERT_TRUE(q) << q.error().message();
  const std::string& canonical = GetParam().canonical;
  EXPECT_EQ(q->toString(), canonical == "0" ? "0" : "-" + canonical);
  EXPECT_EQ(q->format(), GetParam().format);
}

INSTANTIATE_TEST_SUITE_P(
    Quantities, QuantityCanonicalTest,
    ::testing::Values(
        // Decimal SI.
        CanonicalCase{"Milli", "100m", "100m", Format::DecimalSI},
        CanonicalCase{"Nano", "100n", "100n", Format::DecimalSI},
        CanonicalCase{"Micro", "4u", "4u", Format::DecimalSI},
        CanonicalCase{"Plain", "9", "9", Format::DecimalSI},
        CanonicalCase{"Zero", "0", "0", Format::DecimalSI},
        CanonicalCase{"Mega", "1M", "1M", Format::DecimalSI},
        CanonicalCase{"Exa", "1E", "1E", Format::DecimalSI},
        CanonicalCase{"TwelveExa", "12E", "12E", Format::DecimalSI},
        CanonicalCase{"PastExaFallsBackToExponent", "1000E", "1e21", Format::DecimalSI},
        CanonicalCase{"FractionToMilli", "1.5", "1500m", Format::DecimalSI},
        CanonicalCase{"TenthToMilli", "0.1", "100m", Format::DecimalSI},
        CanonicalCase{"LeadingPoint", ".5", "500m", Format::DecimalSI},
        CanonicalCase{"TrailingPoint", "5.", "5", Format::DecimalSI},
        CanonicalCase{"TrailingPointWithSuffix", "1.G", "1G", Format::DecimalSI},
        CanonicalCase{"ThousandMilliIsOne", "1000m", "1", Format::DecimalSI},
        CanonicalCase{"ThousandIsKilo", "1000", "1k", Format::DecimalSI},
        CanonicalCase{"ThousandKiloIsMega", "1000k", "1M", Format::DecimalSI},
        CanonicalCase{"ThousandMegaIsGiga", "1000M", "1G", Format::DecimalSI},
        CanonicalCase{"FractionalKilo", "100.035k", "100035", Format::DecimalSI},
        CanonicalCase{"FractionalMega", "10.035M", "10035k", Format::DecimalSI},
        CanonicalCase{"FractionalPeta", "2.5P", "2500T", Format::DecimalSI},
        CanonicalCase{"FractionalExa", "1.01E", "1010P", Format::DecimalSI},
        CanonicalCase{"SmallFractionOfKilo", "0.0005k", "500m", Format::DecimalSI},
        CanonicalCase{"BeyondInt64", "123456789123456789123", "123456789123456789123",
                      Format::DecimalSI},
        // Values finer than a nano round up, away from zero.
        CanonicalCase{"SubNanoRoundsUp", "0.0000000001", "1n", Format::DecimalSI},
        CanonicalCase{"FractionalNanoRoundsUp", "3.001n", "4n", Format::DecimalSI},
        CanonicalCase{"NineTenthsNano", "0.9n", "1n", Format::DecimalSI},
        CanonicalCase{"ManyDigitsRoundUp", "0.00000012345", "124n", Format::DecimalSI},
        // Decimal exponents.
        CanonicalCase{"Exponent", "2e3", "2e3", Format::DecimalExponent},
        CanonicalCase{"ExponentKeepsMantissa", "12e6", "12e6", Format::DecimalExponent},
        CanonicalCase{"UpperCaseExponent", "1E3", "1e3", Format::DecimalExponent},
        CanonicalCase{"PlusExponent", "1e+3", "1e3", Format::DecimalExponent},
        CanonicalCase{"NegativeExponent", "1e-3", "1e-3", Format::DecimalExponent},
        CanonicalCase{"ExponentOfOneHasNoSuffix", "1e1", "10", Format::DecimalExponent},
        CanonicalCase{"ExponentZero", "1e0", "1", Format::DecimalExponent},
        CanonicalCase{"FractionalExponent", "1.2e3", "1200", Format::DecimalExponent},
        CanonicalCase{"ExponentLoweredToMultipleOfThree", "1.3E+6", "1300e3",
                      Format::DecimalExponent},
        CanonicalCase{"ExponentBelowOne", "5e-1", "500e-3", Format::DecimalExponent},
        CanonicalCase{"ExponentRoundsUpToNano", "1.1E-9", "2e-9", Format::DecimalExponent},
        CanonicalCase{"TinyExponentRoundsUpToNano", "1e-100", "1e-9", Format::DecimalExponent},
        // Binary SI.
        CanonicalCase{"Kibi", "1Ki", "1Ki", Format::BinarySI},
        CanonicalCase{"Gibi", "1Gi", "1Gi", Format::BinarySI},
        CanonicalCase{"Exbi", "1Ei", "1Ei", Format::BinarySI},
        CanonicalCase{"KibiCarriesToMebi", "1024Ki", "1Mi", Format::BinarySI},
        CanonicalCase{"MebiCarriesToGibi", "1024Mi", "1Gi", Format::BinarySI},
        CanonicalCase{"NonMultipleStays", "1536Mi", "1536Mi", Format::BinarySI},
        CanonicalCase{"OddKibi", "1025Ki", "1025Ki", Format::BinarySI},
        CanonicalCase{"FractionalGibi", "1.5Gi", "1536Mi", Format::BinarySI},
        CanonicalCase{"HalfGibi", "0.5Gi", "512Mi", Format::BinarySI},
        CanonicalCase{"HalfMebi", "0.5Mi", "512Ki", Format::BinarySI},
        CanonicalCase{"IntegerBinaryWithoutSuffix", "1.5Ki", "1536", Format::BinarySI},
        CanonicalCase{"BinaryBelow1024IsDecimal", "0.5Ki", "512", Format::BinarySI},
        CanonicalCase{"FractionalBinaryIsDecimal", "1.1Ki", "1126400m", Format::BinarySI},
        CanonicalCase{"FractionalBinaryKeepsDigits", "100.035Ki", "102435840m", Format::BinarySI},
        CanonicalCase{"ZeroBinary", "0Ki", "0", Format::BinarySI},
        CanonicalCase{"BinaryCappedAtInt64Max", "9Ei", "9223372036854775807", Format::BinarySI},
        CanonicalCase{"HugeBinaryCapped", "9223372036854775807Ki", "9223372036854775807",
                      Format::BinarySI},
        // A non-zero binary value below one becomes DecimalSI at parse time.
        CanonicalCase{"MilliKibi", ".001Ki", "1024m", Format::BinarySI},
        CanonicalCase{"MicroKibi", ".000001Ki", "1024u", Format::DecimalSI},
        CanonicalCase{"NanoKibi", ".000000001Ki", "1024n", Format::DecimalSI},
        CanonicalCase{"SubNanoKibiRoundsUp", ".000000000001Ki", "2n", Format::DecimalSI}),
    [](const auto& info) { return info.param.name; });

// Explicit signs and leading zeros: apimachinery's String() returns such input verbatim (it
// caches the parsed text), while toString() always gives the canonical form.
struct SignCase {
  std::string name;
  std::string input;
  std::string canonical;
};

void PrintTo(const SignCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantitySignTest : public ::testing::TestWithParam<SignCase> {};

TEST_P(QuantitySignTest, FormatsCanonically) {
  EXPECT_EQ(mustParse(GetParam().input).toString(), GetParam().canonical);
}

INSTANTIATE_TEST_SUITE_P(
    Signs, QuantitySignTest,
    ::testing::Values(SignCase{"Negative", "-1", "-1"},
                      SignCase{"NegativeBinary", "-1.5Gi", "-1536Mi"},
                      SignCase{"NegativeSmallBinary", "-0.5Ki", "-512"},
                      SignCase{"NegativeSubNano", "-0.1n", "-1n"}, SignCase{"Plus", "+1", "1"},
                      SignCase{"PlusBinary", "+1Ki", "1Ki"}, SignCase{"NegativeZero", "-0", "0"},
                      SignCase{"PlusZero", "+0.0", "0"}, SignCase{"LeadingZeros", "0100m", "100m"},
                      SignCase{"ZeroWithFraction", "0.000", "0"}),
    [](const auto& info) { return info.param.name; });

struct InvalidCase {
  std::string name;
  std::string input;
  std::string message;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantityInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(QuantityInvalidTest, RejectsWithApimachineryMessage) {
  auto q = Quantity::parse(GetParam().input);
  ASSERT_FALSE(q) << "parsed as " << q->toString();
  EXPECT_TRUE(q.error().is(Code::Invalid));
  EXPECT_EQ(q.error().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, QuantityInvalidTest,
    ::testing::Values(
        InvalidCase{"Empty", "", std::string(kFormatError)},
        InvalidCase{"TwoPoints", "1.2.3", std::string(kFormatError)},
        InvalidCase{"TwoPointsWithSuffix", "1.1.M", std::string(kFormatError)},
        InvalidCase{"BytesSuffix", "1Kb", std::string(kFormatError)},
        InvalidCase{"InnerSpace", "1 Gi", std::string(kFormatError)},
        InvalidCase{"LeadingSpace", " 1", std::string(kFormatError)},
        InvalidCase{"TrailingSpace", "1 ", std::string(kFormatError)},
        InvalidCase{"Letters", "abc", std::string(kFormatError)},
        InvalidCase{"OtherLetters", "aoeu", std::string(kFormatError)},
        InvalidCase{"UnknownLetter", "0.1am", std::string(kFormatError)},
        InvalidCase{"SignInsideNumber", "1+1.0M", std::string(kFormatError)},
        InvalidCase{"FractionalExponent", "1e3.5", std::string(kFormatError)},
        // apimachinery reads these digitless numbers as zero; the grammar requires a digit.
        InvalidCase{"SuffixOnly", "Gi", std::string(kFormatError)},
        InvalidCase{"PointOnly", ".", std::string(kFormatError)},
        InvalidCase{"SignOnly", "-", std::string(kFormatError)},
        InvalidCase{"SignAndPoint", "+.", std::string(kFormatError)},
        InvalidCase{"ExponentWithoutNumber", "e3", std::string(kFormatError)},
        // Well-shaped but unknown suffixes get apimachinery's ErrSuffix.
        InvalidCase{"ExponentWithoutDigits", "1e", std::string(kSuffixError)},
        InvalidCase{"ExponentWithOnlySign", "-3.01e-", std::string(kSuffixError)},
        InvalidCase{"LowerCaseBinary", "0.1mi", std::string(kSuffixError)},
        InvalidCase{"BareI", "1i", std::string(kSuffixError)},
        InvalidCase{"PointFiveI", ".5i", std::string(kSuffixError)},
        InvalidCase{"DoubleSuffix", "1KK", std::string(kSuffixError)},
        InvalidCase{"UpperCaseKilo", "1K", std::string(kSuffixError)},
        InvalidCase{"DigitsAfterBinary", "1Ki5", std::string(kSuffixError)},
        InvalidCase{"ExponentPastInt64", "1e9223372036854775808", std::string(kSuffixError)},
        // Beyond the 128-bit range.
        InvalidCase{"TooLarge", "1e29",
                    "quantity \"1e29\" is out of range: the magnitude must be less than 1e29"},
        InvalidCase{"TooLargeNegative", "-100000000000000000000000000000",
                    "quantity \"-100000000000000000000000000000\" is out of range: the "
                    "magnitude must be less than 1e29"},
        InvalidCase{"HugeExponent", "1e999999999999",
                    "quantity \"1e999999999999\" is out of range: the magnitude must be less "
                    "than 1e29"}),
    [](const auto& info) { return info.param.name; });

TEST(QuantityTest, AcceptsLargestMagnitude) {
  auto q = Quantity::parse("99999999999999999999999999999.999999999");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->nanoValue(), Quantity::kMaxNanos);
  EXPECT_EQ(q->toString(), "99999999999999999999999999999999999999n");
}

TEST(QuantityTest, DefaultIsZeroDecimalSI) {
  Quantity q;
  EXPECT_TRUE(q.isZero());
  EXPECT_EQ(q.format(), Format::DecimalSI);
  EXPECT_EQ(q.toString(), "0");
  EXPECT_EQ(q.value(), 0);
}

TEST(QuantityTest, SubNanoRoundsUpToOneNano) {
  EXPECT_EQ(mustParse("0.0000000001").nanoValue(), 1);
  EXPECT_EQ(mustParse("1e-30").nanoValue(), 1);
  EXPECT_EQ(mustParse("-1e-30").nanoValue(), -1);
  EXPECT_EQ(mustParse("0.0000000000").nanoValue(), 0);
}

struct RoundingCase {
  std::string name;
  std::string input;
  int64_t value;
  int64_t milli;
};

void PrintTo(const RoundingCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantityRoundingTest : public ::testing::TestWithParam<RoundingCase> {};

TEST_P(QuantityRoundingTest, RoundsAwayFromZero) {
  const Quantity q = mustParse(GetParam().input);
  EXPECT_EQ(q.value(), GetParam().value);
  EXPECT_EQ(q.milliValue(), GetParam().milli);
}

INSTANTIATE_TEST_SUITE_P(
    Values, QuantityRoundingTest,
    ::testing::Values(RoundingCase{"Zero", "0", 0, 0}, RoundingCase{"One", "1", 1, 1000},
                      RoundingCase{"OneAndAHalf", "1.5", 2, 1500},
                      RoundingCase{"Milli", "100m", 1, 100}, RoundingCase{"OneNano", "1n", 1, 1},
                      RoundingCase{"JustOverMilli", "1.0001m", 1, 2},
                      RoundingCase{"Gibi", "1Gi", 1073741824, 1073741824000},
                      RoundingCase{"Kilo", "2k", 2000, 2000000},
                      RoundingCase{"NegativeFraction", "-1.5", -2, -1500},
                      RoundingCase{"NegativeNano", "-1n", -1, -1},
                      RoundingCase{"Int64Max", "9223372036854775807",
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::max()},
                      RoundingCase{"SaturatesHigh", "1e20", std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::max()},
                      RoundingCase{"SaturatesLow", "-1e20", std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::min()}),
    [](const auto& info) { return info.param.name; });

TEST(QuantityTest, AsDoubleIsNearestValue) {
  EXPECT_DOUBLE_EQ(mustParse("2Ki").asDouble(), 2048.0);
  EXPECT_DOUBLE_EQ(mustParse("1.1Ki").asDouble(), 1126.4);
  EXPECT_DOUBLE_EQ(mustParse("1Mi").asDouble(), 1.048576e+06);
  EXPECT_DOUBLE_EQ(mustParse("2Gi").asDouble(), 2.147483648e+09);
  EXPECT_DOUBLE_EQ(mustParse("100m").asDouble(), 0.1);
  EXPECT_DOUBLE_EQ(mustParse("-1.5").asDouble(), -1.5);
  EXPECT_DOUBLE_EQ(mustParse("12E").asDouble(), 1.2e19);
  EXPECT_EQ(Quantity().asDouble(), 0.0);
}

struct ConstructCase {
  std::string name;
  int64_t amount;
  Format format;
  std::string fromInt;    // Quantity::fromInt(amount, format).toString()
  std::string fromMilli;  // Quantity::fromMilli(amount, format).toString()
};

void PrintTo(const ConstructCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantityConstructTest : public ::testing::TestWithParam<ConstructCase> {};

TEST_P(QuantityConstructTest, FormatsLikeNewQuantityAndNewMilliQuantity) {
  const ConstructCase& c = GetParam();
  const Quantity whole = Quantity::fromInt(c.amount, c.format);
  EXPECT_EQ(whole.toString(), c.fromInt);
  EXPECT_EQ(whole.value(), c.amount);
  EXPECT_EQ(whole.format(), c.format);
  const Quantity milli = Quantity::fromMilli(c.amount, c.format);
  EXPECT_EQ(milli.toString(), c.fromMilli);
  EXPECT_EQ(milli.milliValue(), c.amount);
  EXPECT_EQ(milli.format(), c.format);
}

// From apimachinery's TestNewSet and TestMilliNewSet.
INSTANTIATE_TEST_SUITE_P(
    Amounts, QuantityConstructTest,
    ::testing::Values(ConstructCase{"One", 1, Format::DecimalSI, "1", "1m"},
                      ConstructCase{"Thousand", 1000, Format::DecimalSI, "1k", "1"},
                      ConstructCase{"Thousands", 1234000, Format::DecimalSI, "1234k", "1234"},
                      ConstructCase{"Kibi", 1024, Format::BinarySI, "1Ki", "1024m"},
                      ConstructCase{"Mebi", 1024 * 1024, Format::BinarySI, "1Mi", "1048576m"},
                      ConstructCase{"Exponent", 1000000, Format::DecimalExponent, "1e6", "1e3"},
                      ConstructCase{"Zero", 0, Format::BinarySI, "0", "0"},
                      ConstructCase{"Negative", -1500, Format::DecimalSI, "-1500", "-1500m"},
                      ConstructCase{"Int64Max", std::numeric_limits<int64_t>::max(),
                                    Format::DecimalSI, "9223372036854775807",
                                    "9223372036854775807m"}),
    [](const auto& info) { return info.param.name; });

TEST(QuantityTest, AddsExactly) {
  EXPECT_EQ((mustParse("1") + mustParse("500m")).toString(), "1500m");
  EXPECT_EQ((mustParse("1Gi") + mustParse("1Gi")).toString(), "2Gi");
  EXPECT_EQ((mustParse("100m") + mustParse("1n")).toString(), "100000001n");
  EXPECT_EQ((mustParse("10") + mustParse("1e1")).toString(), "20");
}

TEST(QuantityTest, SubtractsExactly) {
  EXPECT_EQ((mustParse("1Gi") - mustParse("512Mi")).toString(), "512Mi");
  EXPECT_EQ((mustParse("1") - mustParse("1.5")).toString(), "-500m");
  EXPECT_EQ((mustParse("10") - mustParse("1e1")).toString(), "0");
}

TEST(QuantityTest, ArithmeticKeepsLeftFormat) {
  // apimachinery TestAdd/TestSub: the receiver's format wins unless it is zero.
  const Quantity decimal = Quantity::fromInt(10, Format::DecimalSI);
  const Quantity binary = Quantity::fromInt(1, Format::BinarySI);
  EXPECT_EQ((decimal + binary).format(), Format::DecimalSI);
  EXPECT_EQ((decimal - binary).format(), Format::DecimalSI);
  EXPECT_EQ((Quantity::fromInt(10, Format::BinarySI) + Quantity::fromInt(1)).format(),
            Format::BinarySI);
  EXPECT_EQ((decimal - binary).value(), 9);
}

TEST(QuantityTest, AddingToZeroAdoptsOtherFormat) {
  // apimachinery TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix.
  for (const char* text : {"100m", "1Gi"}) {
    const Quantity value = mustParse(text);
    const Quantity zero = mustParse("0");
    EXPECT_EQ((value + zero).toString(), text);
    EXPECT_EQ((zero + value).toString(), text);
    EXPECT_EQ((value - zero).toString(), text);
    EXPECT_EQ((zero - value).toString(), (-value).toString());
    EXPECT_EQ((zero - value).format(), value.format());
  }
}

TEST(QuantityTest, CompoundAssignmentAccumulates) {
  Quantity total;
  for (const char* text : {"1Gi", "512Mi", "512Mi"}) {
    total += mustParse(text);
  }
  EXPECT_EQ(total.toString(), "2Gi");
  total -= mustParse("2Gi");
  EXPECT_TRUE(total.isZero());
}

TEST(QuantityTest, NegationKeepsFormat) {
  EXPECT_EQ((-mustParse("1Gi")).toString(), "-1Gi");
  EXPECT_EQ((-mustParse("-9.01")).toString(), "9010m");
  EXPECT_EQ((-Quantity()).toString(), "0");
}

TEST(QuantityTest, ArithmeticSaturatesAtRange) {
  const Quantity max = mustParse("99999999999999999999999999999.999999999");
  EXPECT_EQ((max + max).nanoValue(), Quantity::kMaxNanos);
  EXPECT_EQ((max + mustParse("1n")).nanoValue(), Quantity::kMaxNanos);
  EXPECT_EQ((-max - max).nanoValue(), -Quantity::kMaxNanos);
  EXPECT_EQ((max - max).nanoValue(), 0);
}

struct CompareCase {
  std::string name;
  std::string left;
  std::string right;
  std::strong_ordering expected;
};

void PrintTo(const CompareCase& c, std::ostream* os) {
  *os << c.name;
}

class QuantityCompareTest : public ::testing::TestWithParam<CompareCase> {};

TEST_P(QuantityCompareTest, ComparesNumericallyIgnoringFormat) {
  const Quantity left = mustParse(GetParam().left);
  const Quantity right = mustParse(GetParam().right);
  EXPECT_TRUE((left <=> right) == GetParam().expected);
  EXPECT_EQ(left == right, GetParam().expected == std::strong_ordering::equal);
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, QuantityCompareTest,
    ::testing::Values(CompareCase{"Zeros", "0", "0", std::strong_ordering::equal},
                      CompareCase{"ZeroFormats", "0Ki", "0m", std::strong_ordering::equal},
                      CompareCase{"MilliGreater", "100m", "50m", std::strong_ordering::greater},
                      CompareCase{"MilliLess", "50m", "100m", std::strong_ordering::less},
                      CompareCase{"TeraOverGibi", "10000T", "100Gi", std::strong_ordering::greater},
                      CompareCase{"KibiEqualsDecimal", "1Ki", "1024", std::strong_ordering::equal},
                      CompareCase{"MilliEqualsOne", "1000m", "1", std::strong_ordering::equal},
                      CompareCase{"ExponentEqualsKilo", "1e3", "1k", std::strong_ordering::equal},
                      CompareCase{"KiloUnderKibi", "1k", "1Ki", std::strong_ordering::less},
                      CompareCase{"Negative", "-1", "1n", std::strong_ordering::less},
                      CompareCase{"NanoApart", "1000000001n", "1", std::strong_ordering::greater}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::core
