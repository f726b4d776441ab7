// Throttling and idempotency over the wire, on an injected clock: RunInstances' bucket (5, refill
// 2/s) drains in a burst and refills only as the fake clock advances; a ClientToken sent twice
// creates once, as /admin/stats proves.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

class Ec2ThrottlingWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = startEc2(clock_, ec2::Ec2EmulatorOptions{});
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock_);
    // The ids a client discovers first, as Karpenter does (Describe has its own bucket).
    subnet_ = firstText(
        "DescribeSubnets",
        {{"Filter.1.Name", "tag:karpenter.sh/discovery"}, {"Filter.1.Value.1", "nodewright"}},
        "subnetId");
    group_ = firstText(
        "DescribeSecurityGroups",
        {{"Filter.1.Name", "tag:karpenter.sh/discovery"}, {"Filter.1.Value.1", "nodewright"}},
        "groupId");
    image_ = firstText(
        "DescribeImages",
        {{"Owner.1", "amazon"}, {"Filter.1.Name", "architecture"}, {"Filter.1.Value.1", "x86_64"}},
        "imageId");
    ASSERT_FALSE(subnet_.empty() || group_.empty() || image_.empty());
  }

  std::string firstText(std::string_view action, const aws::ParamPairs& params,
                        std::string_view element) {
    auto response = client_->call(action, params);
    EXPECT_TRUE(response) << response.error().message();
    if (!response) {
      return "";
    }
    EXPECT_EQ(response->status, 200) << response->body;
    return response->firstText(element);
  }

  aws::ParamPairs runParams(const std::string& clientToken = "") const {
    aws::ParamPairs p{{"ImageId", image_},   {"InstanceType", "m5.large"},
                      {"MinCount", "1"},     {"MaxCount", "1"},
                      {"SubnetId", subnet_}, {"SecurityGroupId.1", group_}};
    if (!clientToken.empty()) {
      p.emplace_back("ClientToken", clientToken);
    }
    return p;
  }

  // Status and error code ("" on success) of one RunInstances.
  std::pair<int, std::string> runOnce() {
    auto response = client_->call("RunInstances", runParams());
    EXPECT_TRUE(response) << response.error().message();
    if (!response) {
      return {0, "transport"};
    }
    auto error = response->error();
    return {response->status, error ? error->code : ""};
  }

  std::string createLaunchTemplate() {
    return firstText("CreateLaunchTemplate",
                     {{"LaunchTemplateName", "idempotency"},
                      {"LaunchTemplateData.ImageId", image_},
                      {"LaunchTemplateData.SecurityGroupId.1", group_}},
                     "launchTemplateId");
  }

  aws::ParamPairs fleetParams(const std::string& templateId, const std::string& token) const {
    return {{"Type", "instant"},
            {"ClientToken", token},
            {"TargetCapacitySpecification.TotalTargetCapacity", "2"},
            {"TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand"},
            {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId", templateId},
            {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
            {"LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.large"},
            {"LaunchTemplateConfigs.1.Overrides.1.SubnetId", subnet_}};
  }

  core::FakeClock clock_;
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
  std::string subnet_;
  std::string group_;
  std::string image_;
};

TEST_F(Ec2ThrottlingWireTest, RunInstancesBurstDrainsTheBucketAndRefillsOnTheClock) {
  std::vector<std::pair<int, std::string>> burst;
  for (int i = 0; i < 20; ++i) {
    burst.push_back(runOnce());
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(burst[i], std::make_pair(200, std::string())) << "request " << i;
  }
  for (int i = 5; i < 20; ++i) {
    EXPECT_EQ(burst[i], std::make_pair(503, std::string("RequestLimitExceeded")))
        << "request " << i;
  }

  // Two tokens a second.
  clock_.advance(std::chrono::seconds(1));
  EXPECT_EQ(runOnce(), std::make_pair(200, std::string()));
  EXPECT_EQ(runOnce(), std::make_pair(200, std::string()));
  EXPECT_EQ(runOnce(), std::make_pair(503, std::string("RequestLimitExceeded")));

  auto stats = adminStats(*client_);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ(liveCount(*stats, "instance"), 7) << stats->dump();
  EXPECT_EQ((*stats)["requests"]["RunInstances"]["errors"]["RequestLimitExceeded"], 16)
      << stats->dump();
}

TEST_F(Ec2ThrottlingWireTest, ThrottledResponseIsEc2Xml) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(runOnce().first, 200);
  }
  auto response = client_->call("RunInstances", runParams());
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 503);
  auto error = response->error();
  ASSERT_TRUE(error) << response->body;
  EXPECT_EQ(error->code, "RequestLimitExceeded");
  EXPECT_EQ(error->message, "Request limit exceeded.");
  EXPECT_FALSE(response->firstText("RequestID").empty()) << response->body;
}

TEST_F(Ec2ThrottlingWireTest, ThrottlingRunInstancesLeavesOtherBucketsAlone) {
  for (int i = 0; i < 6; ++i) {
    runOnce();
  }
  auto response = client_->call("DescribeInstances");
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 200) << response->body;
}

TEST_F(Ec2ThrottlingWireTest, SameClientTokenCreatesOneFleet) {
  const std::string templateId = createLaunchTemplate();
  ASSERT_FALSE(templateId.empty());
  const std::string token = "fleet-token-1";
  auto first = client_->call("CreateFleet", fleetParams(templateId, token));
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_EQ(first->status, 200) << first->body;
  auto second = client_->call("CreateFleet", fleetParams(templateId, token));
  ASSERT_TRUE(second) << second.error().message();
  ASSERT_EQ(second->status, 200) << second->body;

  EXPECT_FALSE(first->firstText("fleetId").empty()) << first->body;
  EXPECT_EQ(first->firstText("fleetId"), second->firstText("fleetId"));
  EXPECT_EQ(first->itemTexts("instanceIds").size(), 2u) << first->body;
  EXPECT_EQ(first->itemTexts("instanceIds"), second->itemTexts("instanceIds"));

  auto stats = adminStats(*client_);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ((*stats)["createsByClientToken"][token], 1) << stats->dump();
  EXPECT_TRUE((*stats)["duplicateClientTokens"].empty()) << stats->dump();
  EXPECT_EQ(liveCount(*stats, "instance"), 2) << stats->dump();
  // An instant fleet is done once it answers; it may be kept as live or as retained.
  EXPECT_EQ(liveCount(*stats, "fleet") + (*stats)["retained"].value("fleet", int64_t{0}), 1)
      << stats->dump();
}

TEST_F(Ec2ThrottlingWireTest, SameClientTokenRunsInstancesOnce) {
  auto first = client_->call("RunInstances", runParams("run-token-1"));
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_EQ(first->status, 200) << first->body;
  auto second = client_->call("RunInstances", runParams("run-token-1"));
  ASSERT_TRUE(second) << second.error().message();
  ASSERT_EQ(second->status, 200) << second->body;

  EXPECT_EQ(first->firstText("reservationId"), second->firstText("reservationId"));
  EXPECT_EQ(first->firstText("instanceId"), second->firstText("instanceId"));
  auto stats = adminStats(*client_);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ((*stats)["createsByClientToken"]["run-token-1"], 1) << stats->dump();
  EXPECT_TRUE((*stats)["duplicateClientTokens"].empty()) << stats->dump();
  EXPECT_EQ(liveCount(*stats, "instance"), 1) << stats->dump();
}

}  // namespace
}  // namespace nodewright::emulators::testing
