// PricingProvider: the built-in on-demand table, its refresh through the Pricing API, and spot
// prices from the EC2 emulator's DescribeSpotPriceHistory with a TTL.
#include "cloud/aws/pricing/pricing_provider.h"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "aws/json_client.h"
#include "cloud/aws/instancetype/emulated_ec2.h"
#include "cloud/aws/pricing/ondemand_prices.h"
#include "emulators/ec2/spot_prices.h"

namespace nodewright::cloud::aws {
namespace {

using namespace std::chrono_literals;

// Answers the Pricing API's GetProducts with what the test set: in-process, because what is
// tested is what the provider does with an answer, not the protocol (PricingClient's own tests
// cover that).
class CannedTransport final : public sdk::Transport {
 public:
  sdk::ApiResult<sdk::HttpResponse> send(const sdk::HttpRequest& request,
                                         std::chrono::milliseconds) override {
    std::lock_guard lock(mu_);
    ++calls;
    auto target = request.headers.find("X-Amz-Target");
    lastTarget = target != request.headers.end() ? target->second : "";
    return next;
  }

  // One page of products, each Linux on-demand at `prices`.
  void answer(const std::map<std::string, double>& prices) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [type, price] : prices) {
      nlohmann::json product = {
          {"product", {{"attributes", {{"instanceType", type}}}}},
          {"terms",
           {{"OnDemand",
             {{"T1",
               {{"priceDimensions",
                 {{"D1", {{"pricePerUnit", {{"USD", std::to_string(price)}}}}}}}}}}}}}};
      list.push_back(product.dump());
    }
    std::lock_guard lock(mu_);
    next = sdk::HttpResponse{
        .status = 200, .headers = {}, .body = nlohmann::json{{"PriceList", list}}.dump()};
  }

  void fail(int status) {
    std::lock_guard lock(mu_);
    next = sdk::HttpResponse{
        .status = status,
        .headers = {},
        .body = R"({"__type":"InternalErrorException","message":"pricing is down"})"};
  }

  std::mutex mu_;
  sdk::ApiResult<sdk::HttpResponse> next = sdk::HttpResponse{};
  int calls = 0;
  std::string lastTarget;
};

class PricingProviderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ec2_.ok()); }

  sdk::JsonClientOptions jsonOptions() {
    sdk::JsonClientOptions o;
    o.endpoint = "http://127.0.0.1:1";  // never dialled: the transport answers
    o.region = "us-east-1";
    o.service = "pricing";
    o.targetPrefix = "AWSPriceListService";
    o.credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.maxAttempts = 1;
    return o;
  }

  double emulatorSpot(const std::string& type, const std::string& zone) {
    auto price = emulators::ec2::spotPrice(*ec2_.catalog().find(type), zone, clock_.now());
    EXPECT_TRUE(price);
    return price.value_or(-1);
  }

  core::FakeClock clock_;
  testing::EmulatedEc2 ec2_{clock_};
  CannedTransport canned_;
  sdk::JsonClient json_{clock_, canned_, jsonOptions()};
  sdk::PricingClient pricingApi_{json_};
  PricingProvider pricing_{clock_, ec2_.ec2(), &pricingApi_};
};

TEST_F(PricingProviderTest, BuiltinTableCoversEveryPricedCatalogType) {
  std::ifstream in(NW_SHARED_DIR "/data/aws-instance-types.json");
  ASSERT_TRUE(in);
  size_t priced = 0;
  for (const auto& record : nlohmann::json::parse(in)) {
    if (!record["onDemandPriceUSDPerHour"].is_number()) {
      continue;
    }
    ++priced;
    const std::string name = record["name"].get<std::string>();
    EXPECT_EQ(pricing_.onDemand(name), record["onDemandPriceUSDPerHour"].get<double>()) << name;
  }
  EXPECT_EQ(builtinOnDemandPrices().size(), priced);
  EXPECT_TRUE(
      std::is_sorted(builtinOnDemandPrices().begin(), builtinOnDemandPrices().end(),
                     [](const auto& a, const auto& b) { return a.instanceType < b.instanceType; }));
  EXPECT_EQ(pricing_.onDemand("m5.large"), 0.096);
  EXPECT_EQ(pricing_.onDemand("m5.gigantic"), std::nullopt);
}

TEST_F(PricingProviderTest, RefreshReplacesTheTableWithThePricingApisAnswer) {
  canned_.answer({{"m5.large", 0.1}, {"m5.xlarge", 0.2}});
  const uint64_t before = pricing_.generation();
  ASSERT_TRUE(pricing_.refreshOnDemand());
  EXPECT_EQ(canned_.lastTarget, "AWSPriceListService.GetProducts");
  EXPECT_DOUBLE_EQ(*pricing_.onDemand("m5.large"), 0.1);
  EXPECT_DOUBLE_EQ(*pricing_.onDemand("m5.xlarge"), 0.2);
  EXPECT_EQ(pricing_.onDemand("c5.large"), std::nullopt);  // the answer is the whole table
  EXPECT_GT(pricing_.generation(), before);
}

TEST_F(PricingProviderTest, FailedRefreshKeepsTheTable) {
  canned_.fail(500);
  const uint64_t before = pricing_.generation();
  auto status = pricing_.refreshOnDemand();
  ASSERT_FALSE(status);
  EXPECT_TRUE(status.error().message().starts_with("refreshing on-demand prices: "))
      << status.error().message();
  EXPECT_EQ(pricing_.onDemand("m5.large"), 0.096);
  EXPECT_EQ(pricing_.generation(), before);

  canned_.answer({});  // a region the Pricing API has nothing for
  ASSERT_FALSE(pricing_.refreshOnDemand());
  EXPECT_EQ(pricing_.onDemand("m5.large"), 0.096);
}

TEST_F(PricingProviderTest, WithoutAPricingClientTheTableIsAllThereIs) {
  PricingProvider offline(clock_, ec2_.ec2(), nullptr);
  auto status = offline.refreshOnDemand();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code(), core::Code::Invalid);
  EXPECT_EQ(offline.onDemand("m5.large"), 0.096);
}

TEST_F(PricingProviderTest, SpotPricesComeFromDescribeSpotPriceHistory) {
  EXPECT_DOUBLE_EQ(*pricing_.spot("m5.large", "us-east-1a"),
                   emulatorSpot("m5.large", "us-east-1a"));
  EXPECT_DOUBLE_EQ(*pricing_.spot("m5.large", "us-east-1c"),
                   emulatorSpot("m5.large", "us-east-1c"));
  EXPECT_DOUBLE_EQ(*pricing_.spot("p5.48xlarge", "us-east-1b"),
                   emulatorSpot("p5.48xlarge", "us-east-1b"));
  EXPECT_EQ(pricing_.spot("m5.large", "eu-west-1a"), std::nullopt);
  EXPECT_EQ(pricing_.spot("m5.gigantic", "us-east-1a"), std::nullopt);
}

TEST_F(PricingProviderTest, SpotPricesAreCachedForTheTtlThenFollowTheMarket) {
  const double first = *pricing_.spot("m5.large", "us-east-1a");
  const int64_t calls = ec2_.requests("DescribeSpotPriceHistory");
  EXPECT_GT(calls, 0);
  clock_.advance(4min);
  pricing_.spot("m5.large", "us-east-1b");
  pricing_.spot("c5.large", "us-east-1a");
  EXPECT_EQ(ec2_.requests("DescribeSpotPriceHistory"), calls);

  // The emulator's market moves every hour; the next refresh after the TTL sees it.
  const uint64_t generation = pricing_.generation();
  clock_.advance(1h);
  const double later = *pricing_.spot("m5.large", "us-east-1a");
  EXPECT_EQ(ec2_.requests("DescribeSpotPriceHistory"), 2 * calls);
  EXPECT_DOUBLE_EQ(later, emulatorSpot("m5.large", "us-east-1a"));
  if (later != first) {
    EXPECT_GT(pricing_.generation(), generation);
  }
}

TEST_F(PricingProviderTest, FailedSpotRefreshKeepsTheLastPricesAndBacksOff) {
  const double known = *pricing_.spot("m5.large", "us-east-1a");
  ec2_.failAll("DescribeSpotPriceHistory", "InternalError");
  clock_.advance(6min);
  auto status = pricing_.refreshSpotIfStale();
  ASSERT_FALSE(status);
  EXPECT_TRUE(status.error().message().starts_with("describing spot price history: "))
      << status.error().message();
  const int64_t calls = ec2_.requests("DescribeSpotPriceHistory");
  // Many lookups while EC2 fails: the known prices, and no request per lookup.
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(pricing_.spot("m5.large", "us-east-1a"), known);
  }
  EXPECT_EQ(ec2_.requests("DescribeSpotPriceHistory"), calls);
  // After the back-off, the next lookup tries again.
  ec2_.failAll("DescribeSpotPriceHistory", "InternalError", 0);
  clock_.advance(30s);
  pricing_.spot("m5.large", "us-east-1a");
  EXPECT_GT(ec2_.requests("DescribeSpotPriceHistory"), calls);
}

}  // namespace
}  // namespace nodewright::cloud::aws
