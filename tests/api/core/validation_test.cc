#include "api/core/validation.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nodewright::api::corev1 {
namespace {

using std::string_literals::operator""s;

struct Base64Case {
  std::string name;
  std::string text;
  std::string bytes;
  std::optional<size_t> errorOffset;
};

void PrintTo(const Base64Case& c, std::ostream* os) {
  *os << c.name;
}

class Base64DecodeTest : public ::testing::TestWithParam<Base64Case> {};

// Offsets are those Go's base64.StdEncoding.DecodeString reports in CorruptInputError.
TEST_P(Base64DecodeTest, DecodesLikeGoStdEncoding) {
  Base64Result r = decodeBase64(GetParam().text);
  EXPECT_EQ(r.errorOffset, GetParam().errorOffset);
  if (!GetParam().errorOffset) {
    EXPECT_EQ(r.bytes, GetParam().bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, Base64DecodeTest,
    ::testing::Values(
        Base64Case{"Empty", "", "", std::nullopt},
        Base64Case{"OneQuantum", "YWJj", "abc", std::nullopt},
        Base64Case{"TwoPads", "YQ==", "a", std::nullopt},
        Base64Case{"OnePad", "YWI=", "ab", std::nullopt},
        Base64Case{"Longer", "aGVsbG8sIHdvcmxk", "hello, world", std::nullopt},
        Base64Case{"NewlinesIgnored", "aGVs\nbG8s\r\nIHdv\ncmxk\n", "hello, world", std::nullopt},
        Base64Case{"BinaryBytes", "/+8A", "\xff\xef\x00"s, std::nullopt},
        Base64Case{"MissingPadding", "YQ", "", 0},
        Base64Case{"ShortSecondQuantum", "YWJjZA", "", 4}, Base64Case{"OneCharacter", "Y", "", 0},
        Base64Case{"BadCharacter", "YW*j", "", 2}, Base64Case{"UrlAlphabet", "-_8A", "", 0},
        Base64Case{"PadTooEarly", "Y===", "", 1},
        Base64Case{"SinglePadWhereTwoNeeded", "YQ=", "", 3},
        Base64Case{"PadThenData", "YQ=a", "", 2}, Base64Case{"TrailingGarbage", "YQ==YQ==", "", 4},
        Base64Case{"SpaceIsNotIgnored", "YW Jj", "", 2}),
    [](const auto& info) { return info.param.name; });

TEST(Base64EncodeTest, RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    Base64Result r = decodeBase64(encodeBase64(bytes));
    ASSERT_FALSE(r.errorOffset) << i;
    EXPECT_EQ(r.bytes, bytes);
    bytes += static_cast<char>(i * 37);
  }
  EXPECT_EQ(encodeBase64("hello, world"), "aGVsbG8sIHdvcmxk");
  EXPECT_EQ(encodeBase64("a"), "YQ==");
}

TEST(ConfigMapKeyTest, ReportsApimachineryMessages) {
  EXPECT_TRUE(configMapKeyErrors("app.yaml").empty());
  EXPECT_TRUE(configMapKeyErrors("KEY_NAME-1").empty());
  EXPECT_EQ(configMapKeyErrors("."), std::vector<std::string>{"must not be '.'"});
  EXPECT_EQ(configMapKeyErrors(".."), std::vector<std::string>{"must not be '..'"});
  EXPECT_EQ(configMapKeyErrors(std::string(254, 'k')),
            std::vector<std::string>{"must be no more than 253 characters"});
  EXPECT_EQ(configMapKeyErrors("a/b"),
            std::vector<std::string>{
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                "'[-._a-zA-Z0-9]+')"});
}

TEST(IntOrPercentTest, AcceptsNonNegativeNumbersAndPercents) {
  FieldErrors errors;
  validateIntOrPercent(IntOrString::ofInt(0), FieldPath("x"), errors);
  validateIntOrPercent(IntOrString::ofString("100%"), FieldPath("x"), errors);
  validateIntOrPercent(IntOrString::ofString("250%"), FieldPath("x"), errors, false);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(percentValue("25%"), 25);
  EXPECT_EQ(percentValue("%"), std::nullopt);
  EXPECT_EQ(percentValue("2.5%"), std::nullopt);
  EXPECT_TRUE(isZero(std::nullopt));
  EXPECT_TRUE(isZero(IntOrString::ofString("0%")));
  EXPECT_FALSE(isZero(IntOrString::ofInt(1)));
}

}  // namespace
}  // namespace nodewright::api::corev1
