#include "core/hex.h"

#include <gtest/gtest.h>

namespace nodewright::core {
namespace {

TEST(HexTest, RoundTripsEveryByte) {
  std::string bytes;
  for (int c = 0; c < 256; ++c) {
    bytes += static_cast<char>(c);
  }
  const std::string hex = hexEncode(bytes);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(hex.substr(hex.size() - 4), "feff");
  EXPECT_EQ(hexDecode(hex), bytes);
}

TEST(HexTest, DecodeRefusesOddLengthsAndOtherCharacters) {
  EXPECT_EQ(hexDecode("abc"), std::nullopt);
  EXPECT_EQ(hexDecode("0g"), std::nullopt);
  EXPECT_EQ(hexDecode("AB"), std::nullopt);  // lower case only, as hexEncode writes
  EXPECT_EQ(hexDecode(""), std::string());
}

}  // namespace
}  // namespace nodewright::core
