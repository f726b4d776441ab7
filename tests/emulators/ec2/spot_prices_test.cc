// The spot price model: deterministic, inside its band of the on-demand price, moving in steps.
#include "emulators/ec2/spot_prices.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const core::TimePoint kT0 = core::TimePoint(std::chrono::seconds(1700000000));
const char* const kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};

TEST(SpotPricesTest, StayInsideTheBandOfTheOnDemandPrice) {
  Catalog catalog = builtinCatalog();
  double sum = 0;
  int count = 0;
  for (const InstanceTypeInfo& t : catalog.all()) {
    ASSERT_TRUE(t.onDemandPrice) << t.name;
    for (const char* zone : kZones) {
      for (int step = 0; step < 48; ++step) {
        auto price = spotPrice(t, zone, kT0 + hours(step));
        ASSERT_TRUE(price) << t.name;
        // Prices are rounded to 1/10000 USD, never below it.
        const double slack = 0.00005 + 1e-12;
        EXPECT_GE(*price, std::max(0.0001, *t.onDemandPrice * kSpotMinFraction - slack)) << t.name;
        EXPECT_LE(*price, std::max(0.0001, *t.onDemandPrice * kSpotMaxFraction + slack)) << t.name;
        sum += *price / *t.onDemandPrice;
        ++count;
      }
    }
  }
  // The base fractions sit in the middle of the band.
  EXPECT_GT(sum / count, 0.4);
  EXPECT_LT(sum / count, 0.55);
}

TEST(SpotPricesTest, AreTheSameForTheSameTypeZoneAndStep) {
  Catalog a = builtinCatalog();
  Catalog b = builtinCatalog();
  const InstanceTypeInfo& m5 = *a.find("m5.large");
  EXPECT_EQ(spotPrice(m5, "us-east-1a", kT0), spotPrice(*b.find("m5.large"), "us-east-1a", kT0));
  // Within a step the price holds.
  const core::TimePoint start = spotPriceStepStart(spotPriceStepIndex(kT0));
  EXPECT_LE(start, kT0);
  EXPECT_GT(start + kSpotPriceStep, kT0);
  EXPECT_EQ(spotPrice(m5, "us-east-1a", start),
            spotPrice(m5, "us-east-1a", start + kSpotPriceStep - minutes(1)));
  EXPECT_EQ(spotPriceAtStep(m5, "us-east-1a", spotPriceStepIndex(kT0)),
            spotPrice(m5, "us-east-1a", kT0));
}

// Known values pin the model on every platform: a change to the hash or the band shows up
// here, not as a silent shift of every benchmark's market.
TEST(SpotPricesTest, KnownValuesArePinned) {
  Catalog catalog = builtinCatalog();
  auto at = [&](const char* type, const char* zone) {
    return formatSpotPrice(*spotPrice(*catalog.find(type), zone, kT0));
  };
  EXPECT_EQ(at("m5.large", "us-east-1a"), "0.043100");
  EXPECT_EQ(at("m5.large", "us-east-1b"), "0.058100");
  EXPECT_EQ(at("p5.48xlarge", "us-east-1a"), "21.481500");
  EXPECT_EQ(at("p5.48xlarge", "us-east-1b"), "20.056100");
}

TEST(SpotPricesTest, MoveOverTimeAndDifferAcrossPools) {
  Catalog catalog = builtinCatalog();
  const InstanceTypeInfo& t = *catalog.find("c5.xlarge");
  std::set<double> overTime;
  for (int step = 0; step < 24; ++step) {
    overTime.insert(*spotPrice(t, "us-east-1a", kT0 + hours(step)));
  }
  EXPECT_GT(overTime.size(), 10u);

  // Some pools are cheaper than others on average, so a price-capacity choice matters.
  int differing = 0;
  for (const InstanceTypeInfo& type : catalog.all()) {
    if (spotPrice(type, "us-east-1a", kT0) != spotPrice(type, "us-east-1b", kT0)) {
      ++differing;
    }
  }
  EXPECT_GT(differing, static_cast<int>(catalog.size() / 2));
}

TEST(SpotPricesTest, TypesWithoutAnOnDemandPriceHaveNoSpotPrice) {
  InstanceTypeInfo t;
  t.name = "x9.unknown";
  EXPECT_FALSE(spotPrice(t, "us-east-1a", kT0));
  t.onDemandPrice = 0;
  EXPECT_FALSE(spotPrice(t, "us-east-1a", kT0));
}

TEST(SpotPricesTest, FormatsWithSixDecimals) {
  EXPECT_EQ(formatSpotPrice(0.0345), "0.034500");
  EXPECT_EQ(formatSpotPrice(12.5), "12.500000");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
