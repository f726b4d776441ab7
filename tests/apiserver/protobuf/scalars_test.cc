#include "apiserver/protobuf/scalars.h"

#include <gtest/gtest.h>

#include "apiserver/protobuf/wire_builder.h"

namespace nodewright::apiserver::protobuf {
namespace {

using api::Json;
using testing::Proto;

TEST(ScalarsTest, FormatsRfc3339InUtc) {
  EXPECT_EQ(*formatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(*formatRfc3339(951782400), "2000-02-29T00:00:00Z");
  EXPECT_EQ(*formatRfc3339(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(*formatRfc3339(253402300799), "9999-12-31T23:59:59Z");
  EXPECT_FALSE(formatRfc3339(253402300800));
  EXPECT_FALSE(formatRfc3339(-62135596801));
}

TEST(ScalarsTest, TimeIsNullWhenUnsetOrGoZero) {
  EXPECT_EQ(*decodeTime(""), Json(nullptr));
  EXPECT_EQ(*decodeTime(Proto().varint(1, static_cast<std::uint64_t>(-62135596800)).str()),
            Json(nullptr));
  // An explicit zero is the Unix epoch, not an unset time.
  EXPECT_EQ(*decodeTime(Proto().varint(1, 0).str()), Json("1970-01-01T00:00:00Z"));
  EXPECT_EQ(*decodeTime(Proto().varint(1, 1).varint(2, 999999999).str()),
            Json("1970-01-01T00:00:01Z"));
  EXPECT_FALSE(decodeTime("\x08"));
}

TEST(ScalarsTest, QuantityIsItsStringOrZero) {
  EXPECT_EQ(*decodeQuantity(Proto().bytes(1, "1.5Gi").str()), Json("1.5Gi"));
  EXPECT_EQ(*decodeQuantity(""), Json("0"));
  EXPECT_EQ(*decodeQuantity(Proto().varint(9, 1).bytes(1, "2").str()), Json("2"));
  EXPECT_FALSE(
      decodeQuantity("\x0a\x03"
                     "1"));
}

TEST(ScalarsTest, IntOrStringFollowsItsType) {
  EXPECT_EQ(*decodeIntOrString(Proto().varint(1, 0).varint(2, 80).bytes(3, "").str()), Json(80));
  EXPECT_EQ(*decodeIntOrString(Proto().varint(1, 1).varint(2, 0).bytes(3, "http").str()),
            Json("http"));
  EXPECT_EQ(*decodeIntOrString(""), Json(0));
  EXPECT_FALSE(decodeIntOrString(Proto().varint(1, 7).str()));
}

TEST(ScalarsTest, ValidUtf8KeepsValidTextAndReplacesEachBadByte) {
  EXPECT_EQ(validUtf8("plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  const std::string bad = "\xef\xbf\xbd";
  EXPECT_EQ(validUtf8("\xc0\x80"), bad + bad);                      // overlong NUL
  EXPECT_EQ(validUtf8("\xed\xa0\x80"), bad + bad + bad);            // UTF-16 surrogate
  EXPECT_EQ(validUtf8("\xf4\x90\x80\x80"), bad + bad + bad + bad);  // past U+10FFFF
  EXPECT_EQ(validUtf8("a\xe2\x82"), "a" + bad + bad);               // truncated sequence
  EXPECT_EQ(validUtf8(std::string("\0x", 2)), std::string("\0x", 2));
}

}  // namespace
}  // namespace nodewright::apiserver::protobuf
