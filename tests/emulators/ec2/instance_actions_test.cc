// DescribeInstances, TerminateInstances, CreateTags and DeleteTags in process: filters, pages
// grouped by reservation, EC2's errors for ids, and tags on every taggable kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::hours;
using testing::kLaunchLatency;
using testing::kNodeGroup;
using testing::kSubnetA;
using testing::kSubnetB;
using testing::kTerminateLatency;
using testing::LaunchWorld;
using testing::Xml;

class InstanceActionsTest : public ::testing::Test {
 protected:
  // Ids of the instances of every reservation in a DescribeInstances response.
  static std::vector<std::string> described(const Xml& response) {
    std::vector<std::string> ids;
    for (pugi::xml_node reservation : response.items("reservationSet")) {
      for (pugi::xml_node i : reservation.child("instancesSet").children("item")) {
        ids.push_back(i.child_value("instanceId"));
      }
    }
    return ids;
  }

  // Sorted ids of the instances launched.
  std::vector<std::string> run(int count, std::string_view type = "m5.large",
                               const aws::ParamPairs& extra = {}) {
    aws::ParamPairs request = w_.runParams(count, type);
    request.insert(request.end(), extra.begin(), extra.end());
    return sorted(LaunchWorld::instanceIds(w_.ok("RunInstances", request)));
  }

  // Sorted, as DescribeInstances lists by id.
  std::vector<std::string> filtered(const std::string& name, const std::string& value) {
    return sorted(described(
        w_.ok("DescribeInstances", {{"Filter.1.Name", name}, {"Filter.1.Value.1", value}})));
  }

  static std::vector<std::string> sorted(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  LaunchWorld w_;
};

TEST_F(InstanceActionsTest, FiltersSelectByStateTypeZoneTagsAndLifecycle) {
  const auto m5 = run(2);
  const auto c5 = run(1, "c5.large",
                      {{"TagSpecification.1.ResourceType", "instance"},
                       {"TagSpecification.1.Tag.1.Key", "karpenter.sh/nodepool"},
                       {"TagSpecification.1.Tag.1.Value", "gpu"}});
  const auto spot = run(1, "m5.xlarge", {{"InstanceMarketOptions.MarketType", "spot"}});
  w_.advance(kLaunchLatency);
  w_.ok("TerminateInstances", {{"InstanceId.1", m5[1]}});

  EXPECT_EQ(filtered("instance-type", "m5.large"), m5);
  EXPECT_EQ(filtered("instance-type", "c5.*"), c5);
  EXPECT_EQ(filtered("tag:karpenter.sh/nodepool", "gpu"), c5);
  EXPECT_EQ(filtered("tag-key", "karpenter.sh/nodepool"), c5);
  EXPECT_EQ(filtered("instance-lifecycle", "spot"), spot);
  EXPECT_EQ(filtered("instance-state-name", "shutting-down"), std::vector<std::string>{m5[1]});
  EXPECT_EQ(filtered("instance-state-name", "running").size(), 3u);
  EXPECT_EQ(filtered("availability-zone", "us-east-1a").size(), 4u);
  EXPECT_EQ(filtered("subnet-id", std::string(kSubnetB)).size(), 0u);
  EXPECT_EQ(filtered("network-interface.network-card-index", "0").size(), 4u);
  EXPECT_EQ(filtered("image-id", w_.image()).size(), 4u);

  aws::ApiError e =
      w_.fails("DescribeInstances", {{"Filter.1.Name", "colour"}, {"Filter.1.Value.1", "red"}});
  EXPECT_EQ(e.code, "InvalidParameterValue");
}

TEST_F(InstanceActionsTest, PagesKeepInstancesGroupedByReservation) {
  std::set<std::string> launched;
  for (int i = 0; i < 3; ++i) {
    for (const std::string& id : run(i + 1)) {
      launched.insert(id);
    }
  }
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    aws::ParamPairs request{{"MaxResults", "5"}};
    if (!token.empty()) {
      request.emplace_back("NextToken", token);
    }
    Xml page = w_.ok("DescribeInstances", request);
    for (pugi::xml_node reservation : page.items("reservationSet")) {
      const std::string reservationId = reservation.child_value("reservationId");
      EXPECT_TRUE(reservationId.starts_with("r-"));
      for (pugi::xml_node i : reservation.child("instancesSet").children("item")) {
        seen.push_back(i.child_value("instanceId"));
      }
    }
    token = page.nextToken();
    ++pages;
  } while (!token.empty() && pages < 5);
  EXPECT_EQ(pages, 2);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), launched);
  EXPECT_EQ(seen.size(), 6u);
}

TEST_F(InstanceActionsTest, IdsAndMaxResultsFollowEc2sRules) {
  const auto ids = run(1);
  aws::ApiError e = w_.fails("DescribeInstances", {{"InstanceId.1", ids[0]}, {"MaxResults", "10"}});
  EXPECT_EQ(e.code, "InvalidParameterCombination");
  EXPECT_EQ(e.message, "The parameter instancesSet cannot be used with the parameter maxResults");
  EXPECT_EQ(w_.fails("DescribeInstances", {{"MaxResults", "4"}}).code, "InvalidParameterValue");
  e = w_.fails("DescribeInstances", {{"InstanceId.1", "web-1"}});
  EXPECT_EQ(e.code, "InvalidInstanceID.Malformed");
  EXPECT_EQ(e.message, "Invalid id: \"web-1\"");
  e = w_.fails("DescribeInstances", {{"InstanceId.1", "i-0123456789abcdef0"}});
  EXPECT_EQ(e.code, "InvalidInstanceID.NotFound");
  EXPECT_EQ(e.message, "The instance ID 'i-0123456789abcdef0' does not exist");
  e = w_.fails("TerminateInstances", {{"InstanceId.1", "i-0123456789abcdef0"},
                                      {"InstanceId.2", ids[0]},
                                      {"InstanceId.3", "i-0123456789abcdef1"}});
  EXPECT_EQ(e.message, "The instance IDs 'i-0123456789abcdef0, i-0123456789abcdef1' do not exist");
  EXPECT_EQ(w_.state(ids[0]), "pending");  // nothing was terminated
}

TEST_F(InstanceActionsTest, TerminatingAgainReportsTheCurrentState) {
  const auto ids = run(1);
  Xml first = w_.ok("TerminateInstances", {{"InstanceId.1", ids[0]}});
  EXPECT_STREQ(first.items("instancesSet")[0].child("previousState").child_value("name"),
               "pending");
  Xml second = w_.ok("TerminateInstances", {{"InstanceId.1", ids[0]}});
  EXPECT_STREQ(second.items("instancesSet")[0].child("currentState").child_value("name"),
               "shutting-down");
  w_.advance(kTerminateLatency);
  Xml third = w_.ok("TerminateInstances", {{"InstanceId.1", ids[0]}});
  pugi::xml_node change = third.items("instancesSet")[0];
  EXPECT_STREQ(change.child("currentState").child_value("name"), "terminated");
  EXPECT_STREQ(change.child("previousState").child_value("name"), "terminated");
  w_.advance(hours(1));
  EXPECT_EQ(w_.fails("TerminateInstances", {{"InstanceId.1", ids[0]}}).code,
            "InvalidInstanceID.NotFound");
}

TEST_F(InstanceActionsTest, TagsAreAddedAndRemovedOnEveryTaggableKind) {
  const auto ids = run(1);
  w_.ok("CreateTags", {{"ResourceId.1", ids[0]},
                       {"ResourceId.2", std::string(kSubnetA)},
                       {"ResourceId.3", std::string(kNodeGroup)},
                       {"ResourceId.4", w_.image()},
                       {"Tag.1.Key", "env"},
                       {"Tag.1.Value", "test"},
                       {"Tag.2.Key", "owner"},
                       {"Tag.2.Value", "me"}});
  EXPECT_EQ(filtered("tag:env", "test"), ids);
  for (std::string_view id : {kSubnetA, kNodeGroup}) {
    auto r =
        w_.engine().store().get(id.starts_with("sg-") ? kind::kSecurityGroup : kind::kSubnet, id);
    ASSERT_TRUE(r);
    ASSERT_NE(r->tag("env"), nullptr);
    EXPECT_EQ(*r->tag("env"), "test");
  }
  // A value that does not match keeps the tag; no value removes it whatever its value.
  w_.ok("DeleteTags", {{"ResourceId.1", ids[0]}, {"Tag.1.Key", "env"}, {"Tag.1.Value", "prod"}});
  EXPECT_EQ(filtered("tag-key", "env"), ids);
  w_.ok("DeleteTags", {{"ResourceId.1", ids[0]}, {"Tag.1.Key", "env"}});
  EXPECT_TRUE(filtered("tag-key", "env").empty());
  EXPECT_EQ(filtered("tag:owner", "me"), ids);

  aws::ApiError e =
      w_.fails("CreateTags",
               {{"ResourceId.1", "i-0123456789abcdef0"}, {"Tag.1.Key", "a"}, {"Tag.1.Value", "b"}});
  EXPECT_EQ(e.code, "InvalidInstanceID.NotFound");
  e = w_.fails("CreateTags", {{"ResourceId.1", "thing-1"}, {"Tag.1.Key", "a"}});
  EXPECT_EQ(e.code, "InvalidID");
  EXPECT_EQ(e.message, "The ID 'thing-1' is not valid");
  e = w_.fails("CreateTags", {{"ResourceId.1", ids[0]}, {"Tag.1.Key", "aws:reserved"}});
  EXPECT_EQ(e.code, "InvalidParameterValue");
  e = w_.fails("CreateTags", {{"ResourceId.1", std::string(kSubnetA)},
                              {"ResourceId.2", "subnet-0123456789abcdef0"},
                              {"Tag.1.Key", "half"}});
  EXPECT_EQ(e.code, "InvalidSubnetID.NotFound");
  EXPECT_EQ(w_.engine().store().get(kind::kSubnet, kSubnetA)->tag("half"), nullptr);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
