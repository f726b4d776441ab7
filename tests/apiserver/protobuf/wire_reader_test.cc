#include "apiserver/protobuf/wire_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "apiserver/protobuf/wire_builder.h"

namespace nodewright::apiserver::protobuf {
namespace {

using testing::Proto;
using testing::varintBytes;

TEST(WireReaderTest, ReadsVarintsUpToTheFullSixtyFourBits) {
  std::string data = varintBytes(0) + varintBytes(300) + varintBytes(~0ull);
  WireReader reader(data);
  EXPECT_EQ(*reader.readVarint(), 0u);
  EXPECT_EQ(*reader.readVarint(), 300u);
  EXPECT_EQ(*reader.readVarint(), ~0ull);
  EXPECT_TRUE(reader.atEnd());
}

TEST(WireReaderTest, RejectsTruncatedAndOverlongVarints) {
  const std::string truncatedBytes("\x96", 1);  // the reader views it: keep it alive
  WireReader truncated(truncatedBytes);
  auto value = truncated.readVarint();
  ASSERT_FALSE(value);
  EXPECT_TRUE(value.error().is(core::Code::Invalid));
  EXPECT_EQ(value.error().message(), "unexpected end of input reading a varint");

  const std::string overlongBytes(11, '\xff');
  WireReader overlong(overlongBytes);
  EXPECT_EQ(overlong.readVarint().error().message(), "varint longer than 10 bytes");
}

TEST(WireReaderTest, ReadsTagsAndRejectsFieldZeroAndUnknownWireTypes) {
  Proto proto;
  proto.bytes(17, "x");
  WireReader reader(proto.str());
  auto tag = reader.readTag();
  ASSERT_TRUE(tag);
  EXPECT_EQ(tag->number, 17u);
  EXPECT_EQ(tag->type, WireType::LengthDelimited);

  std::string zero = varintBytes(0 << 3 | 2);
  EXPECT_EQ(WireReader(zero).readTag().error().message(), "invalid field number 0");
  std::string seven = varintBytes(3 << 3 | 7);
  EXPECT_EQ(WireReader(seven).readTag().error().message(), "invalid wire type 7 for field 3");
}

TEST(WireReaderTest, ReadsLengthDelimitedAsViewsAndRejectsLengthsPastTheEnd) {
  std::string data = varintBytes(3) + "abc" + varintBytes(5) + "ab";
  WireReader reader(data);
  EXPECT_EQ(*reader.readLengthDelimited(), "abc");
  auto past = reader.readLengthDelimited();
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().message(), "length 5 runs past the end of the input (2 bytes left)");
}

TEST(WireReaderTest, HugeLengthsFailInsteadOfOverflowing) {
  std::string data = varintBytes(~0ull) + "x";
  EXPECT_FALSE(WireReader(data).readLengthDelimited());
}

TEST(WireReaderTest, ReadsFixedWidthValuesLittleEndian) {
  Proto proto;
  proto.fixed64(1, 0x0102030405060708ull).fixed32(2, 0xA0B0C0D0u);
  WireReader reader(proto.str());
  ASSERT_TRUE(reader.readTag());
  EXPECT_EQ(*reader.readFixed64(), 0x0102030405060708ull);
  ASSERT_TRUE(reader.readTag());
  EXPECT_EQ(*reader.readFixed32(), 0xA0B0C0D0u);
  EXPECT_TRUE(reader.atEnd());
  EXPECT_FALSE(WireReader("1234567").readFixed64());
  EXPECT_FALSE(WireReader("123").readFixed32());
}

TEST(WireReaderTest, SkipsEveryWireTypeButGroups) {
  Proto proto;
  proto.varint(1, 1ull << 40).fixed64(2, 7).bytes(3, "skipped").fixed32(4, 9).varint(5, 42);
  WireReader reader(proto.str());
  for (int i = 0; i < 4; ++i) {
    auto tag = reader.readTag();
    ASSERT_TRUE(tag);
    ASSERT_TRUE(reader.skip(tag->type));
  }
  ASSERT_EQ(reader.readTag()->number, 5u);
  EXPECT_EQ(*reader.readVarint(), 42u);

  WireReader groups("");
  auto skipped = groups.skip(WireType::StartGroup);
  ASSERT_FALSE(skipped);
  EXPECT_EQ(skipped.error().message(), "unsupported wire type start-group");
}

TEST(WireReaderTest, SkippingATruncatedValueFails) {
  EXPECT_FALSE(WireReader("\x05"
                          "ab")
                   .skip(WireType::LengthDelimited));
  EXPECT_FALSE(WireReader("\x80").skip(WireType::Varint));
  EXPECT_FALSE(WireReader("12").skip(WireType::Fixed32));
  EXPECT_FALSE(WireReader("1234").skip(WireType::Fixed64));
}

}  // namespace
}  // namespace nodewright::apiserver::protobuf
