// PricingClient against the EC2 emulator's GetProducts: every priced type of the full catalog
// across pages, the region filter, and retries of injected faults.
#include "aws/pricing_client.h"

#include <gtest/gtest.h>

#include <cmath>

#include "aws/ec2_client_fixture.h"
#include "aws/json_peer_fixture.h"
#include "emulators/ec2/catalog.h"

namespace nodewright::aws {
namespace {

class PricingClientTest : public testing::Ec2ClientTest {
 protected:
  emulators::ec2::Ec2EmulatorOptions emulatorOptions() override {
    emulators::ec2::Ec2EmulatorOptions o;
    auto catalog =
        emulators::ec2::loadCatalog(std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json");
    EXPECT_TRUE(catalog) << catalog.error().message();
    if (catalog) {
      o.catalog = std::move(*catalog);
    }
    return o;
  }
  void SetUp() override {
    Ec2ClientTest::SetUp();
    json_ = testing::jsonClientFor(clock_, counting_, server_->url(), "pricing",
                                   "AWSPriceListService", &clock_);
    pricing_ = std::make_unique<PricingClient>(*json_);
  }
  std::unique_ptr<JsonClient> json_;
  std::unique_ptr<PricingClient> pricing_;
};

TEST_F(PricingClientTest, ReadsEveryPricedTypeAcrossPages) {
  std::map<std::string, double> want;
  for (const auto& t : server_->emulator().catalog().all()) {
    if (t.onDemandPrice) {
      want[t.name] = *t.onDemandPrice;
    }
  }
  ASSERT_GT(want.size(), 200u);
  auto prices = pricing_->onDemandLinuxPrices("us-east-1");
  ASSERT_TRUE(prices) << prices.error().code << ": " << prices.error().message;
  EXPECT_EQ(counting_.sent, static_cast<int>((want.size() + 99) / 100));
  ASSERT_EQ(prices->size(), want.size());
  for (const auto& [type, price] : want) {
    ASSERT_TRUE(prices->contains(type)) << type;
    EXPECT_NEAR(prices->at(type), price, 1e-9) << type;
  }
  EXPECT_NEAR(prices->at("m5.large"), 0.096, 1e-9);
}

TEST_F(PricingClientTest, ARegionWithoutProductsHasNoPrices) {
  auto prices = pricing_->onDemandLinuxPrices("eu-west-1");
  ASSERT_TRUE(prices) << prices.error().message;
  EXPECT_TRUE(prices->empty());
}

TEST_F(PricingClientTest, InjectedServerErrorsAreRetriedWithinTheBudget) {
  putFaults(
      R"({"errors": {"pricing:GetProducts": [{"code": "InternalError", "probability": 1}]}})");
  auto prices = pricing_->onDemandLinuxPrices("us-east-1");
  ASSERT_FALSE(prices);
  EXPECT_EQ(prices.error().code, "InternalError");
  EXPECT_EQ(counting_.sent, 3);
}

TEST_F(PricingClientTest, TheServiceRejectsFiltersItCannotApply) {
  auto got = json_->call(
      "GetProducts",
      {{"ServiceCode", "AmazonEC2"},
       {"Filters", {{{"Type", "CONTAINS"}, {"Field", "instanceType"}, {"Value", "m5"}}}}});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InvalidParameterException");
  EXPECT_NE(got.error().message.find("TERM_MATCH"), std::string::npos) << got.error().message;
  EXPECT_EQ(counting_.sent, 1);
}

}  // namespace
}  // namespace nodewright::aws
