#include "api/capi/cidr.h"

#include <gtest/gtest.h>

namespace nodewright::api::capi {
namespace {

struct CidrCase {
  std::string name;
  std::string text;
  bool valid;
};

class CidrParseTest : public ::testing::TestWithParam<CidrCase> {};

TEST_P(CidrParseTest, AcceptsWhatGoNetParseCidrAccepts) {
  EXPECT_EQ(parseCidr(GetParam().text).has_value(), GetParam().valid) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Texts, CidrParseTest,
    ::testing::Values(
        CidrCase{"Ipv4", "10.0.0.0/16", true}, CidrCase{"Ipv4HostBits", "10.0.0.7/8", true},
        CidrCase{"Ipv4Zero", "0.0.0.0/0", true}, CidrCase{"Ipv4Full", "192.168.1.1/32", true},
        CidrCase{"Ipv6", "fd00:10:96::/112", true},
        CidrCase{"Ipv6Full", "2001:db8:0:0:0:0:0:1/128", true}, CidrCase{"Ipv6Any", "::/0", true},
        CidrCase{"Ipv6WithIpv4Tail", "::ffff:10.0.0.0/104", true},
        CidrCase{"PrefixTooLong", "10.0.0.0/33", false},
        CidrCase{"Ipv6PrefixTooLong", "fd00::/129", false}, CidrCase{"NoPrefix", "10.0.0.0", false},
        CidrCase{"EmptyPrefix", "10.0.0.0/", false},
        CidrCase{"OctetTooLarge", "10.0.256.0/24", false},
        CidrCase{"LeadingZero", "10.01.0.0/16", false},
        CidrCase{"TooFewOctets", "10.0.0/16", false},
        CidrCase{"DoubleCompression", "fd00::1::/64", false},
        CidrCase{"TooManyGroups", "1:2:3:4:5:6:7:8:9/64", false},
        CidrCase{"Garbage", "ten.zero/8", false}),
    [](const auto& info) { return info.param.name; });

TEST(CidrContainsTest, ChecksThePrefixBitsOnly) {
  auto net = parseCidr("10.0.0.0/8");
  ASSERT_TRUE(net.has_value());
  EXPECT_TRUE(net->contains(*parseIp("10.255.1.2")));
  EXPECT_FALSE(net->contains(*parseIp("11.0.0.1")));
  EXPECT_FALSE(net->contains(*parseIp("fd00::1")));

  auto v6 = parseCidr("fd00:10::/32");
  ASSERT_TRUE(v6.has_value());
  EXPECT_TRUE(v6->contains(*parseIp("fd00:10:ffff::1")));
  EXPECT_FALSE(v6->contains(*parseIp("fd00:11::1")));
}

TEST(CidrContainsTest, ClearsHostBitsOfTheBase) {
  auto net = parseCidr("10.1.2.3/16");
  ASSERT_TRUE(net.has_value());
  EXPECT_EQ(net->base.bytes[2], 0);
  EXPECT_EQ(net->base.bytes[3], 0);
  EXPECT_TRUE(net->contains(*parseIp("10.1.200.1")));
}

}  // namespace
}  // namespace nodewright::api::capi
