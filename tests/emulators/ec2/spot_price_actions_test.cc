// DescribeSpotPriceHistory, in process.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/spot_prices.h"
#include "emulators/ec2/world.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::allPages;
using testing::DescribeActionsTest;
using testing::DescribeWorld;
using testing::expectError;
using testing::worldWithSubnets;
using testing::Xml;

// ---- DescribeSpotPriceHistory

TEST_F(DescribeActionsTest, SpotPricesWithoutStartTimeAreTheCurrentOnes) {
  auto body =
      w_.call("DescribeSpotPriceHistory", "InstanceType.1=m5.large&InstanceType.2=c5.large");
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  auto items = xml.items("spotPriceHistorySet");
  ASSERT_EQ(items.size(), 2u * 3 * 2);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (auto item : items) {
    const std::string type = item.child_value("instanceType");
    const std::string zone = item.child_value("availabilityZone");
    seen.insert({type, zone, item.child_value("productDescription")});
    auto expected = spotPrice(*w_.catalog().find(type), zone, w_.clock().now());
    ASSERT_TRUE(expected);
    EXPECT_EQ(item.child_value("spotPrice"), formatSpotPrice(*expected));
    EXPECT_EQ(item.child_value("timestamp"),
              aws::xml::formatTimestamp(spotPriceStepStart(spotPriceStepIndex(w_.clock().now()))));
  }
  EXPECT_EQ(seen.size(), items.size());
  EXPECT_TRUE(xml.nextToken().empty());
}

TEST_F(DescribeActionsTest, SpotPriceHistoryCoversTheWindowNewestFirst) {
  const core::TimePoint now = w_.clock().now();
  const std::string start = aws::xml::formatTimestamp(now - std::chrono::hours(5));
  auto body = w_.call("DescribeSpotPriceHistory",
                      "InstanceType.1=m5.large&ProductDescription.1=Linux/UNIX"
                      "&AvailabilityZone=us-east-1b&StartTime=" +
                          start);
  ASSERT_TRUE(body) << body.error().message;
  Xml xml(*body);
  auto stamps = xml.texts("spotPriceHistorySet", "timestamp");
  // The price in effect at StartTime and the five that followed it.
  ASSERT_EQ(stamps.size(), 6u);
  EXPECT_TRUE(std::is_sorted(stamps.rbegin(), stamps.rend()));
  EXPECT_LE(stamps.back(), start);
  for (auto item : xml.items("spotPriceHistorySet")) {
    EXPECT_STREQ(item.child_value("availabilityZone"), "us-east-1b");
    EXPECT_STREQ(item.child_value("productDescription"), "Linux/UNIX");
  }
}

TEST_F(DescribeActionsTest, SpotPriceHistoryPagesReturnEveryEntryOnce) {
  const std::string start = aws::xml::formatTimestamp(w_.clock().now() - std::chrono::hours(3));
  const std::string query =
      "InstanceType.1=m5.large&InstanceType.2=c5.large&InstanceType.3=p5.48xlarge&StartTime=" +
      start;
  auto all = allPages(w_, "DescribeSpotPriceHistory", query, "spotPriceHistorySet", "spotPrice");
  ASSERT_EQ(all.size(), 3u * 3 * 2 * 4);
  int pages = 0;
  auto types = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                        "spotPriceHistorySet", "instanceType", &pages);
  auto stamps = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                         "spotPriceHistorySet", "timestamp");
  auto zones = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                        "spotPriceHistorySet", "availabilityZone");
  auto products = allPages(w_, "DescribeSpotPriceHistory", query + "&MaxResults=10",
                           "spotPriceHistorySet", "productDescription");
  EXPECT_EQ(pages, 8);
  ASSERT_EQ(types.size(), all.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < types.size(); ++i) {
    keys.insert(types[i] + "|" + zones[i] + "|" + products[i] + "|" + stamps[i]);
  }
  EXPECT_EQ(keys.size(), all.size());
}

TEST_F(DescribeActionsTest, SpotPricesFollowTheClock) {
  auto at = [&] {
    auto body = w_.call("DescribeSpotPriceHistory",
                        "InstanceType.1=m5.xlarge&Filter.1.Name=availability-zone"
                        "&Filter.1.Value.1=us-east-1a&Filter.2.Name=product-description"
                        "&Filter.2.Value.1=Linux/UNIX (Amazon VPC)");
    EXPECT_TRUE(body);
    return body ? Xml(*body).texts("spotPriceHistorySet", "spotPrice") : std::vector<std::string>{};
  };
  std::set<std::string> prices;
  for (int hour = 0; hour < 24; ++hour) {
    auto now = at();
    ASSERT_EQ(now.size(), 1u);
    prices.insert(now[0]);
    w_.clock().advance(std::chrono::hours(1));
  }
  EXPECT_GT(prices.size(), 5u) << "the price moves in steps";
}

TEST_F(DescribeActionsTest, SpotPriceHistoryRejectsBadInput) {
  expectError(w_.call("DescribeSpotPriceHistory", "AvailabilityZone=us-east-1z"),
              "InvalidParameterValue", "us-east-1z");
  expectError(w_.call("DescribeSpotPriceHistory", "StartTime=yesterday"), "InvalidParameterValue",
              "StartTime");
  expectError(w_.call("DescribeSpotPriceHistory", "Filter.1.Name=colour&Filter.1.Value.1=x"),
              "InvalidParameterValue");
  expectError(w_.call("DescribeSpotPriceHistory", "NextToken=" + encodeNextToken("m5.large")),
              "InvalidParameterValue", "NextToken");
  auto unknown = w_.call("DescribeSpotPriceHistory", "InstanceType.1=m5.huge");
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(Xml(*unknown).items("spotPriceHistorySet").empty());
}

}  // namespace
}  // namespace nodewright::emulators::ec2
