#include "cloud/aws/stack.h"

#include <gtest/gtest.h>

#include "support/cloud/aws/provider_fixture.h"

namespace nodewright::cloud::aws::testing {
namespace {

class AwsStackTest : public ProviderTest {};

TEST_F(AwsStackTest, RefreshesOnDemandPricesFromThePricingApiWhenOneIsConfigured) {
  start();
  auto& engine = server_->emulator().engine();
  EXPECT_GE(engine.stats().requests("pricing:GetProducts"), 1u);
  // The emulator's catalog prices are what the provider now knows.
  const auto* info = server_->emulator().catalog().find("m5.large");
  ASSERT_NE(info, nullptr);
  ASSERT_TRUE(info->onDemandPrice);
  EXPECT_DOUBLE_EQ(stack().pricing().onDemand("m5.large").value_or(0), *info->onDemandPrice);
}

TEST_F(AwsStackTest, RefusesOptionsWithoutEndpointsOrClusterName) {
  auto transport = nodewright::aws::makeCurlTransport();
  AwsStackOptions options;
  options.nodeClasses = [](const std::string&) -> core::Result<api::karpenter::EC2NodeClass> {
    return core::fail(core::Error::notFound("none"));
  };
  auto missingEndpoint = AwsStack::create(core::systemClock(), *transport, options);
  ASSERT_FALSE(missingEndpoint);
  EXPECT_EQ(missingEndpoint.error().code(), core::Code::Invalid);
  options.ec2Endpoint = options.ssmEndpoint = "http://127.0.0.1:9";
  auto missingCluster = AwsStack::create(core::systemClock(), *transport, options);
  ASSERT_FALSE(missingCluster);
  EXPECT_NE(missingCluster.error().message().find("cluster name"), std::string::npos);
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
