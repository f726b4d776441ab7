// Faults steered over the admin endpoint while the emulator serves: a capacity pool without
// capacity shows as a per-override error of an instant fleet that falls through to the next
// pool, an error rate fails an action, and a bad configuration is refused whole.
#include <gtest/gtest.h>

#include <string>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

constexpr std::string_view kSubnetA = "subnet-0e2c4a6f8b1d3000a";
constexpr std::string_view kSubnetB = "subnet-0e2c4a6f8b1d3000b";

class Ec2FaultsWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = startEc2(clock_, ec2::Ec2EmulatorOptions{});
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock_);
  }

  WireResponse putFaults(const std::string& json) {
    RawRequest request;
    request.method = "PUT";
    request.target = "/admin/faults";
    request.body = json;
    request.contentType = "application/json";
    auto response = client_->send(request);
    EXPECT_TRUE(response) << response.error().message();
    return response ? *response : WireResponse{};
  }

  std::string image() const {
    return server_->emulator().world().ssmParameters.at(
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/"
        "image_id");
  }

  // One on-demand instance from the template "nodewright-lt": m5.large in subnet A first, then
  // in subnet B.
  static aws::ParamPairs prioritizedFleet() {
    return {
        {"Type", "instant"},
        {"TargetCapacitySpecification.TotalTargetCapacity", "1"},
        {"TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand"},
        {"OnDemandOptions.AllocationStrategy", "prioritized"},
        {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "nodewright-lt"},
        {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
        {"LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.large"},
        {"LaunchTemplateConfigs.1.Overrides.1.SubnetId", std::string(kSubnetA)},
        {"LaunchTemplateConfigs.1.Overrides.1.Priority", "1"},
        {"LaunchTemplateConfigs.1.Overrides.2.InstanceType", "m5.large"},
        {"LaunchTemplateConfigs.1.Overrides.2.SubnetId", std::string(kSubnetB)},
        {"LaunchTemplateConfigs.1.Overrides.2.Priority", "2"}};
  }

  core::FakeClock clock_;
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_F(Ec2FaultsWireTest, AnEmptyPoolIsAPerOverrideErrorAndTheFleetFallsThrough) {
  ASSERT_EQ(putFaults(R"({"capacity": [{"instanceType": "m5.large", "zone": "us-east-1a",
                                        "capacityType": "on-demand"}]})")
                .status,
            200);
  auto fleet = client_->call("CreateFleet", prioritizedFleet());
  ASSERT_TRUE(fleet);
  // The template does not exist yet: the whole request fails, nothing is launched.
  EXPECT_EQ(fleet->status, 400) << fleet->body;
  auto stats = adminStats(*client_);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ(liveCount(*stats, "instance"), 0);

  auto created = client_->call("CreateLaunchTemplate",
                               {{"LaunchTemplateName", "nodewright-lt"},
                                {"LaunchTemplateData.ImageId", image()},
                                {"LaunchTemplateData.SecurityGroupId.1", "sg-0e2c4a6f8b1d30001"}});
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  fleet = client_->call("CreateFleet", prioritizedFleet());
  ASSERT_TRUE(fleet);
  ASSERT_EQ(fleet->status, 200) << fleet->body;
  EXPECT_EQ(fleet->firstText("errorCode"), "InsufficientInstanceCapacity") << fleet->body;
  ASSERT_EQ(fleet->itemTexts("instanceIds").size(), 1u) << fleet->body;

  auto described = client_->call("DescribeInstances",
                                 {{"InstanceId.1", fleet->itemTexts("instanceIds").front()}});
  ASSERT_TRUE(described);
  EXPECT_EQ(described->firstText("subnetId"), kSubnetB) << described->body;
}

TEST_F(Ec2FaultsWireTest, AnErrorRateFailsTheActionUntilTheFaultsAreReplaced) {
  ASSERT_EQ(putFaults(R"({"errors": {"DescribeSubnets": [{"code": "InternalError",
                                                           "probability": 1}]}})")
                .status,
            200);
  auto failed = client_->call("DescribeSubnets");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, 500);
  ASSERT_TRUE(failed->error());
  EXPECT_EQ(failed->error()->code, "InternalError");
  auto other = client_->call("DescribeAvailabilityZones");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200) << other->body;

  ASSERT_EQ(putFaults("{}").status, 200);
  auto healed = client_->call("DescribeSubnets");
  ASSERT_TRUE(healed);
  EXPECT_EQ(healed->status, 200) << healed->body;
}

TEST_F(Ec2FaultsWireTest, ABadConfigurationIsRefusedWholeNamingTheField) {
  ASSERT_EQ(putFaults(R"({"errors": {"DescribeSubnets": [{"code": "InternalError",
                                                           "probability": 1}]}})")
                .status,
            200);
  WireResponse refused =
      putFaults(R"({"errors": {"RunInstances": [{"code": "X", "probability": 2}]}})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("errors.RunInstances[0].probability"), std::string::npos)
      << refused.body;
  // The earlier configuration is still in force.
  auto still = client_->call("DescribeSubnets");
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 500);
}

}  // namespace
}  // namespace nodewright::emulators::testing
